// graft: runs grafting scenarios end to end, diffs and updates log snapshots,
// lists a transform plugin's registry.

#include <unistd.h>

#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include <graft/harness/install_layout.hpp>
#include <graft/localize/localize_command.hpp>
#include <graft/harness/process.hpp>
#include <graft/version.hpp>

#include "cli/commands.hpp"

namespace {

// The first word that is neither an option, an option's value nor a command,
// or "": CLI11 itself only says "A subcommand is required".
std::string misplaced_command(int argc, char** argv, CLI::App& app) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind('-', 0) == 0) {
      // The global options (--fixtures DIR, ...) all take a value.
      const bool takes_value = arg != "-h" && arg != "--help" && arg.find('=') == std::string::npos;
      if (takes_value && app.get_option_no_throw(arg) != nullptr) ++i;
      continue;
    }
    const auto named = app.get_subcommands([&](CLI::App* sub) { return sub->check_name(arg); });
    return named.empty() ? arg : "";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = graft::harness::cli;
  CLI::App app{"graft: run tensor-grafting scenarios in real processes and check their log snapshots.\n"
               "Exit codes: 0 success, 1 a failure or difference, 2 bad input, 77 (run) every scenario was "
               "skipped (its devices are missing here), so nothing was checked."};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", std::string("graft ") + graft::version(), "print graft's version and exit");
  const graft::harness::runtime_paths& defaults = graft::harness::default_runtime_paths();
  cli::paths p{defaults.fixtures, defaults.reports, defaults.plugins, defaults.worker, defaults.python,
               defaults.python_package};
  app.add_option("--fixtures", p.fixtures, "folder with scenarios/ and snapshots/")->capture_default_str();
  app.add_option("--reports", p.reports, "folder for snapshots/, runs/, summary.json and localize/")->capture_default_str();
  app.add_option("--plugins", p.plugins, "folder of the sample transform plugins")->capture_default_str();
  app.add_option("--worker", p.worker, "the graft_worker executable")->capture_default_str();

  cli::run_request run_request;
  std::string junit;
  bool run_json = false;
  auto* run = app.add_subcommand("run", "run scenarios (default: every one in FIXTURES/scenarios), print progress "
                                        "and a summary, check each log snapshot against its golden");
  run->add_option("scenarios", run_request.targets, "scenario files, folders of them, or scenario names");
  run->add_option("-j,--jobs", run_request.jobs, "scenarios to run at once (0: one per core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  run->add_option("--junit", junit, "also write the results as JUnit XML to this file (for CI)");
  run->add_flag("--json", run_json, "print the summary as JSON on stdout (progress goes to stderr)");
  std::string run_grafter = "cpp";
  const auto add_python_option = [&p](CLI::App* command) {
    command->add_option("--python", p.python,
                        "the Python that runs the Python workers (it imports torch, graft, and for sglang "
                        "sglang's dumper)")
        ->capture_default_str();
  };
  run->add_option("--grafter", run_grafter,
                  "who plays the ranks: cpp (graft_worker), python (graft's Python package) or sglang "
                  "(sglang's own grafter, through dumper.dump)")
      ->check(CLI::IsMember({"cpp", "python", "sglang"}))
      ->capture_default_str();
  add_python_option(run);

  std::vector<std::string> conformance_targets;
  int conformance_jobs = 1;
  auto* conformance = app.add_subcommand(
      "conformance", "play every CPU scenario with graft C++, graft Python and sglang's own grafter and write the "
                     "table (REPORTS/conformance.md, conformance.json, the report page); exit 1 when graft's own "
                     "failed");
  conformance->add_option("scenarios", conformance_targets, "scenario files, folders of them, or scenario names");
  conformance->add_option("-j,--jobs", conformance_jobs, "scenarios to run at once (0: one per core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  add_python_option(conformance);

  std::string expected, actual;
  bool diff_json = false;
  auto* diff = app.add_subcommand("diff", "compare two snapshots (structure and strings exactly, numbers within "
                                          "tolerance); exit 0 same, 1 different, 2 bad input");
  diff->add_option("expected", expected, "the reference snapshot (its \"tolerances\" apply)")->required();
  diff->add_option("actual", actual, "the snapshot to check")->required();
  diff->add_flag("--json", diff_json, "print the differences as JSON");

  std::vector<std::string> names;
  bool prune = false;
  auto* update = app.add_subcommand("update", "accept pending snapshots as goldens (all, or the named ones) "
                                              "without showing them (graft review shows each); refused under CI");
  auto* update_names = update->add_option("scenarios", names, "scenario names");
  update->add_flag("--prune", prune, "instead, delete the obsolete goldens (those no scenario uses)")
      ->excludes(update_names);

  bool list_json = false;
  auto* list = app.add_subcommand("list", "list scenarios, their golden status, and obsolete goldens");
  list->add_flag("--json", list_json, "print the list as JSON");

  std::string plugin_library;
  auto* plugins = app.add_subcommand("plugins", "list a transform plugin library's transforms (one a line, with "
                                                "whether each has a fused plan) and its plugin ABI and libtorch "
                                                "versions; exit 2 when graft cannot load it");
  plugins->add_option("library", plugin_library,
                      "the library: a path with a '/', or a file name looked for as a transform spec's LIBRARY "
                      "is (GRAFT_PLUGIN_PATH, then dlopen's search)")
      ->required();

  std::vector<std::string> review_names;
  bool accept_all = false, reject_all = false;
  std::string colour = "auto";
  auto* review = app.add_subcommand("review", "show each pending snapshot's difference from its golden and "
                                              "accept (a), reject (r) or skip (s) it; refused under CI");
  review->add_option("scenarios", review_names, "scenario names (default: every pending one)");
  auto* accept_flag = review->add_flag("--accept", accept_all, "accept every one shown, without asking");
  review->add_flag("--reject", reject_all, "reject (delete) every one shown, without asking")->excludes(accept_flag);
  review->add_option("--color", colour, "auto (a terminal, NO_COLOR unset), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();

  int localize_rc = 2;
  auto* localize = graft::harness::localize::add_localize_command(app, &localize_rc);

  // Before parsing: localize runs from its parse callback.
  graft::harness::kill_children_on_termination_signals();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (const std::string word = misplaced_command(argc, argv, app); !word.empty()) {
      std::cerr << "graft: unknown command '" << word << "'; the commands are run, conformance, diff, review, "
                << "update, list, plugins and localize (graft --help)\n";
      return 2;
    }
    // --help exits 0; any usage error is bad input.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (run_request.jobs == 0) run_request.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!junit.empty()) run_request.junit = junit;
  run_request.json = run_json;
  run_request.grafter = *graft::harness::parse_grafter_kind(run_grafter);
  if (conformance_jobs == 0) conformance_jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    if (run->parsed()) return cli::run_command(p, run_request);
    if (conformance->parsed()) return cli::conformance_command(p, conformance_targets, conformance_jobs);
    if (diff->parsed()) return cli::diff_command(expected, actual, diff_json);
    if (update->parsed()) return cli::update_command(p, names, prune);
    if (list->parsed()) return cli::list_command(p, list_json);
    if (plugins->parsed()) return cli::plugins_command(plugin_library);
    if (review->parsed()) {
      const auto mode = accept_all   ? cli::review_mode::accept_all
                        : reject_all ? cli::review_mode::reject_all
                                     : cli::review_mode::ask;
      const auto colours = colour == "always"  ? cli::colour_mode::always
                           : colour == "never" ? cli::colour_mode::never
                                               : cli::colour_mode::automatic;
      return cli::review_command(p, review_names, mode, colours);
    }
    if (localize->parsed()) return localize_rc;
  } catch (const std::exception& e) {
    // Scenario outcomes never throw; what does is the environment (an
    // unwritable reports folder, a missing fixtures folder).
    std::cerr << "graft: " << e.what() << "\n";
  }
  return 2;
}
