#pragma once
// What the localize command's options parse into, and the steps between it
// and a localize run. Private to the command.

#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <graft/harness/install_layout.hpp>
#include <graft/localize/localize.hpp>

namespace graft::harness::localize::detail {

struct command_state {
  // The built-in model.
  int layers = 4, hidden = 32, heads = 4, vocab = 64, seq_len = 8;
  std::uint64_t seed = 0;
  std::string dtype = "float32";
  std::string target_dtype;  // empty: as --dtype
  std::string bug = "none";
  int bug_layer = 0;
  double bug_eps = 1e-1;
  std::string target_kernels = "standard";
  // A user's programs.
  std::string baseline_cmd, target_cmd, calibration_cmd, launch, calibration_launch;
  int baseline_world_size = 1, target_world_size = 1;
  std::string graft_name = "layer_input";
  // Policy.
  bool calibrate = false;
  double calibration_multiplier = 10;
  std::vector<std::string> tolerance, dtype_tolerance;
  // The run.
  std::string name;
  // The build tree's or the install prefix's, so that localize works from anywhere.
  std::string reports = default_runtime_paths().reports.string();
  std::string model = default_runtime_paths().model.string();
  int timeout_s = 120;
  std::string scenario;
  bool json = false;
};

// Declares every option on app, bound to state.
void add_options(CLI::App& app, command_state& state);

// Throws config_error for inconsistent options (e.g. --target-cmd without --baseline-cmd).
localize_options to_localize_options(const command_state& state);

// What the built-in model says of the settings in model_argv (its program
// first), asked with graft_model --check within timeout: its message naming
// the option at fault, or nullopt when it takes them. Throws graft::error
// when the model cannot start.
std::optional<std::string> model_refusal(std::vector<std::string> model_argv, std::chrono::seconds timeout);

// Runs and prints; the exit code.
int run_command(const command_state& state);

// Writes the reports folder's page (report_page.hpp) once a run has written
// its report, and names it on out when out is set. A page that cannot be
// written is a warning on stderr: it never changes the run's exit code.
void write_page(const localize_options& options, std::ostream* out);

// --scenario: options from the file (command-line --reports/--model/--timeout
// win), then the file's expectations checked against the report.
int run_scenario(const command_state& command_line);

// Throws fixture_error, naming file, for a scenario whose keys or expectation
// types are not the format's: a misspelt key would otherwise check nothing.
void check_scenario_format(const nlohmann::json& scenario, const std::string& file);

// A scenario's "expect" object checked against a report; one line per miss.
std::vector<std::string> check_expectations(const nlohmann::json& expect, const localize_report& report);

}  // namespace graft::harness::localize::detail
