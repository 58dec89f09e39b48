#include "cli/command_state.hpp"

#include <cstdio>
#include <iostream>
#include <utility>

#include <graft/error.hpp>
#include <graft/harness/path_checks.hpp>
#include <graft/harness/scenario.hpp>
#include <graft/harness/snapshot_store.hpp>
#include <graft/localize/report.hpp>

namespace graft::harness::localize::detail {

namespace {

constexpr const char* kModelGroup = "Built-in model (used unless --baseline-cmd/--target-cmd are given)";
constexpr const char* kUserGroup = "Your own programs";
constexpr const char* kPolicyGroup = "Tolerance";
constexpr const char* kRunGroup = "Run";

// A double that parses back to itself.
std::string exact(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::vector<std::string> model_args(const command_state& s, const std::string& dtype, const std::string& bug,
                                    const std::string& kernels) {
  return {s.model,        "--events",   "{events}",     "--layers",    std::to_string(s.layers),
          "--hidden",     std::to_string(s.hidden),     "--heads",     std::to_string(s.heads),
          "--vocab",      std::to_string(s.vocab),      "--seq-len",   std::to_string(s.seq_len),
          "--seed",       std::to_string(s.seed),       "--dtype",     dtype,
          "--bug",        bug,          "--bug-layer",  std::to_string(s.bug_layer),
          "--bug-eps",    exact(s.bug_eps),     "--kernels",   kernels};
}

// Every rank is a process on this machine.
void check_world_sizes(const command_state& s) {
  for (const auto& [option, size] : {std::pair{"--baseline-world-size", s.baseline_world_size},
                                     std::pair{"--target-world-size", s.target_world_size}}) {
    if (size < 1 || size > kMaxScenarioWorldSize) {
      GRAFT_THROW(config_error, std::string(option) + " " + std::to_string(size) + ": must be in [1, " +
                                    std::to_string(kMaxScenarioWorldSize) +
                                    "] (each rank is a process on this machine)");
    }
  }
}

// The built-in model's options that differ from their defaults, as
// "--layers, --bug"; empty when none does.
std::string model_options_given(const command_state& s) {
  const command_state defaults;
  const std::pair<const char*, bool> options[] = {
      {"--layers", s.layers != defaults.layers},
      {"--hidden", s.hidden != defaults.hidden},
      {"--heads", s.heads != defaults.heads},
      {"--vocab", s.vocab != defaults.vocab},
      {"--seq-len", s.seq_len != defaults.seq_len},
      {"--seed", s.seed != defaults.seed},
      {"--dtype", s.dtype != defaults.dtype},
      {"--target-dtype", s.target_dtype != defaults.target_dtype},
      {"--bug", s.bug != defaults.bug},
      {"--bug-layer", s.bug_layer != defaults.bug_layer},
      {"--bug-eps", s.bug_eps != defaults.bug_eps},
      {"--target-kernels", s.target_kernels != defaults.target_kernels},
      {"--model", s.model != defaults.model},
  };
  std::string given;
  for (const auto& [option, differs] : options) {
    if (differs) given += (given.empty() ? "" : ", ") + std::string(option);
  }
  return given;
}

}  // namespace

void add_options(CLI::App& app, command_state& s) {
  app.add_option("--layers", s.layers, "transformer blocks")->capture_default_str()->group(kModelGroup);
  app.add_option("--hidden", s.hidden, "hidden size")->capture_default_str()->group(kModelGroup);
  app.add_option("--heads", s.heads, "attention heads")->capture_default_str()->group(kModelGroup);
  app.add_option("--vocab", s.vocab, "vocabulary size")->capture_default_str()->group(kModelGroup);
  app.add_option("--seq-len", s.seq_len, "tokens")->capture_default_str()->group(kModelGroup);
  app.add_option("--seed", s.seed, "seed of weights and tokens (both sides)")->capture_default_str()->group(kModelGroup);
  app.add_option("--dtype", s.dtype, "the baseline's dtype (and the target's unless --target-dtype)")
      ->check(CLI::IsMember({"float32", "bfloat16"}))
      ->capture_default_str()
      ->group(kModelGroup);
  app.add_option("--target-dtype", s.target_dtype, "the target's dtype")
      ->check(CLI::IsMember({"float32", "bfloat16"}))
      ->group(kModelGroup);
  app.add_option("--bug", s.bug, "a bug planted in the target (the model checks its name: docs/localize.md lists them)")
      ->capture_default_str()
      ->group(kModelGroup);
  app.add_option("--bug-layer", s.bug_layer, "the layer that carries it")->capture_default_str()->group(kModelGroup);
  app.add_option("--bug-eps", s.bug_eps, "the epsilon of the norm_eps bug (the correct one is 1e-6)")
      ->capture_default_str()
      ->group(kModelGroup);
  app.add_option("--target-kernels", s.target_kernels, "standard | alt: the target's kernels (alt: same math, "
                                                       "other reduction orders)")
      ->check(CLI::IsMember({"standard", "alt"}))
      ->capture_default_str()
      ->group(kModelGroup);
  app.add_option("--model", s.model, "the graft_model executable")->capture_default_str()->group(kModelGroup);

  app.add_option("--baseline-cmd", s.baseline_cmd,
                 "the baseline's command line (run by /bin/sh -c per rank); {role} {rank} {world_size} and "
                 "{events} are replaced (quoted for the shell where needed), and DUMPER_GRAFTER_* plus "
                 "RANK/WORLD_SIZE are set. Its grafter, built from the environment, writes its events where "
                 "DUMPER_GRAFTER_EVENTS_PATH says, or the program writes them to {events}")
      ->group(kUserGroup);
  app.add_option("--target-cmd", s.target_cmd, "the target's command line, templated the same way")->group(kUserGroup);
  app.add_option("--calibration-cmd", s.calibration_cmd,
                 "the target-role command for --calibrate: the baseline program with another valid setting "
                 "(default: --baseline-cmd itself)")
      ->group(kUserGroup);
  app.add_option("--launch", s.launch,
                 "instead of --baseline-cmd/--target-cmd: one command line (run by /bin/sh -c per pass) that "
                 "starts every baseline and target rank itself (torchrun, an engine's launcher), with "
                 "{baseline_world_size} and {target_world_size} replaced. DUMPER_GRAFTER_* is set but the role: "
                 "each rank sets DUMPER_GRAFTER_ROLE and RANK (WORLD_SIZE: its side's), and its grafter, built "
                 "from the environment, writes its events where DUMPER_GRAFTER_EVENTS_PATH says")
      ->group(kUserGroup);
  app.add_option("--calibration-launch", s.calibration_launch,
                 "with --launch and --calibrate: the launch command whose target ranks run the baseline program "
                 "with another valid setting")
      ->group(kUserGroup);
  app.add_option("--baseline-world-size", s.baseline_world_size, "baseline ranks")->capture_default_str()->group(kUserGroup);
  app.add_option("--target-world-size", s.target_world_size, "target ranks")->capture_default_str()->group(kUserGroup);
  app.add_option("--graft-name", s.graft_name, "the point grafted from the baseline in the local pass")
      ->capture_default_str()
      ->group(kUserGroup);

  app.add_flag("--calibrate", s.calibrate,
               "first measure the noise floor (the target without its bug and with alt kernels, or "
               "--calibration-cmd) and set thresholds to a multiple of it")
      ->group(kPolicyGroup);
  app.add_option("--calibration-multiplier", s.calibration_multiplier, "threshold = this x noise floor")
      ->capture_default_str()
      ->group(kPolicyGroup);
  app.add_option("--tolerance", s.tolerance,
                 "PATTERN=REL_DIFF: a per-name threshold; PATTERN globs the name or the label "
                 "('attn_*=1e-4', 'logits[4]=1e-3'); wins over calibration and dtype defaults; when several "
                 "match, the first given wins")
      ->group(kPolicyGroup);
  app.add_option("--dtype-tolerance", s.dtype_tolerance,
                 "DTYPE=REL_DIFF: replaces a dtype default (float64 1e-10, float32 1e-6, float16 1e-4, "
                 "bfloat16 1e-3)")
      ->group(kPolicyGroup);

  app.add_option("--name", s.name, "run name: the report goes to REPORTS/localize/NAME (default: localize, or "
                                   "the scenario's file name)")
      ->group(kRunGroup);
  app.add_option("--reports", s.reports, "reports folder")->capture_default_str()->group(kRunGroup);
  app.add_option("--timeout", s.timeout_s, "seconds each pass may take")->capture_default_str()->group(kRunGroup);
  app.add_option("--scenario", s.scenario, "a localize scenario (fixtures/localize/*.json): its options, then "
                                           "its expectations checked; exit 0 when all are met")
      ->check(CLI::ExistingFile)
      ->group(kRunGroup);
  app.add_flag("--json", s.json, "print the JSON report instead of the table")->group(kRunGroup);
}

localize_options to_localize_options(const command_state& s) {
  localize_options o;
  o.run_name = s.name.empty() ? "localize" : s.name;
  if (!is_scenario_name(o.run_name)) {
    GRAFT_THROW(config_error, "--name '" + o.run_name + "': not a run name (" + kScenarioNameRule +
                                  "); it names the folder REPORTS/localize/NAME");
  }
  o.reports_dir = s.reports;
  // On stderr, so that --json leaves stdout to the report.
  o.progress = [](const std::string& line) { std::cerr << "graft localize: " << line << "\n" << std::flush; };
  o.timeout = std::chrono::seconds(s.timeout_s);
  o.graft_name = s.graft_name;
  if (s.timeout_s <= 0) GRAFT_THROW(config_error, "--timeout " + std::to_string(s.timeout_s) + ": must be positive");
  if (!s.launch.empty() && (!s.baseline_cmd.empty() || !s.target_cmd.empty())) {
    GRAFT_THROW(config_error, "--launch starts every rank itself: give it or --baseline-cmd/--target-cmd, not both");
  }
  if (!s.calibration_launch.empty() && s.launch.empty()) {
    GRAFT_THROW(config_error, "--calibration-launch goes with --launch");
  }
  if (s.baseline_cmd.empty() != s.target_cmd.empty()) {
    GRAFT_THROW(config_error, "--baseline-cmd and --target-cmd go together; give both, or neither for the built-in model");
  }
  check_world_sizes(s);

  if (!s.launch.empty()) {
    if (const std::string given = model_options_given(s); !given.empty()) {
      GRAFT_THROW(config_error, given + ": set the built-in model, which --launch replaces; give your programs "
                                        "their settings in the launch command");
    }
    if (!s.calibration_cmd.empty()) {
      GRAFT_THROW(config_error, "--calibration-cmd goes with --baseline-cmd/--target-cmd; with --launch, give "
                                "--calibration-launch");
    }
    // The sides' commands are the launcher's business: here only their sizes.
    o.baseline = {{}, s.baseline_world_size};
    o.target = {{}, s.target_world_size};
    o.launch = shell_command(s.launch, 1);
    if (s.calibrate) {
      if (s.calibration_launch.empty()) {
        GRAFT_THROW(config_error, "--calibrate with --launch needs --calibration-launch: a launch command whose "
                                  "target ranks run the baseline program with another valid setting");
      }
      o.calibration_target = o.target;
      o.calibration_launch = shell_command(s.calibration_launch, 1);
    }
    o.settings["program"] = "launch command";
  } else if (!s.baseline_cmd.empty()) {
    if (const std::string given = model_options_given(s); !given.empty()) {
      GRAFT_THROW(config_error, given + ": set the built-in model, which --baseline-cmd/--target-cmd replace; "
                                        "give your programs their settings in their own command lines");
    }
    o.baseline = shell_command(s.baseline_cmd, s.baseline_world_size);
    o.target = shell_command(s.target_cmd, s.target_world_size);
    if (s.calibrate) {
      o.calibration_target =
          shell_command(s.calibration_cmd.empty() ? s.baseline_cmd : s.calibration_cmd, s.target_world_size);
    }
    o.settings["program"] = "user commands";
  } else {
    if (!s.calibration_cmd.empty()) GRAFT_THROW(config_error, "--calibration-cmd needs --baseline-cmd/--target-cmd");
    if (s.baseline_world_size != 1 || s.target_world_size != 1) {
      GRAFT_THROW(config_error, "--baseline-world-size/--target-world-size need --baseline-cmd/--target-cmd; "
                                "the built-in model runs one rank per side");
    }
    if (const auto reason = unstartable_program_reason(s.model)) {
      GRAFT_THROW(config_error, "--model '" + s.model + "': " + *reason +
                                    "; build it (cmake --build build puts graft_model in BUILD/localize/model) "
                                    "or pass --model PATH");
    }
    const std::string target_dtype = s.target_dtype.empty() ? s.dtype : s.target_dtype;
    o.baseline = {model_args(s, s.dtype, "none", "standard"), 1};
    o.target = {model_args(s, target_dtype, s.bug, s.target_kernels), 1};
    // The target's are the widest settings: the baseline and the calibration
    // differ from them only in a dtype or kernels that the options admit, and plant no bug.
    if (const auto refusal = model_refusal(o.target.argv, o.timeout)) GRAFT_THROW(config_error, *refusal);
    // The noise floor: the target's setting without its bug, on the other kernels.
    const std::string floor_kernels = s.target_kernels == "alt" ? "standard" : "alt";
    if (s.calibrate) o.calibration_target = side_command{model_args(s, target_dtype, "none", floor_kernels), 1};
    o.settings["program"] = "built-in model";
    o.settings["model"] = {{"layers", s.layers},   {"hidden", s.hidden}, {"heads", s.heads},
                           {"vocab", s.vocab},     {"seq_len", s.seq_len}, {"seed", s.seed},
                           {"dtype", s.dtype},     {"target_dtype", target_dtype}, {"bug", s.bug},
                           {"bug_layer", s.bug_layer}, {"bug_eps", s.bug_eps}, {"target_kernels", s.target_kernels}};
  }

  o.tolerance.set_calibration_multiplier(s.calibration_multiplier);
  for (const auto& text : s.dtype_tolerance) {
    const auto [dtype, value] = tolerance_policy::parse_assignment(text, "--dtype-tolerance");
    o.tolerance.set_dtype_default(dtype, value);
  }
  for (const auto& text : s.tolerance) {
    const auto [pattern, value] = tolerance_policy::parse_assignment(text, "--tolerance");
    o.tolerance.add_override(pattern, value);
  }
  // Last, since it creates the folder: only options that are otherwise valid touch the disk.
  if (const auto reason = unwritable_folder_reason(s.reports)) {
    GRAFT_THROW(config_error, "--reports '" + s.reports + "': " + *reason + "; pass --reports DIR, a folder you can write");
  }
  if (const auto problem = report_folder_problem(o.run_directory())) {
    GRAFT_THROW(config_error, "--name '" + o.run_name + "': " + *problem + "; remove it, or pick another --name");
  }
  return o;
}

}  // namespace graft::harness::localize::detail
