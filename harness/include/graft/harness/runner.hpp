#pragma once
// The scenario runner: plays a scenario with one real worker process per rank
// on 127.0.0.1 (a free port per scenario), bounded by the scenario's timeout,
// then checks the expectations and the log snapshot. A scenario's result is
// data (pass / fail / skip / error with the reasons), never an escaping
// exception. A scenario whose devices the machine lacks (device_needs.hpp) is
// skipped with the reason before any worker starts.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/device_needs.hpp>
#include <graft/harness/grafter_kind.hpp>
#include <graft/harness/scenario.hpp>

namespace graft::harness {

struct runner_options {
  std::filesystem::path fixtures;  // holds scenarios/ and snapshots/
  std::filesystem::path reports;   // gets snapshots/, runs/<scenario>/ (diff.txt when the
                                   // snapshot differs), summary.json
  std::filesystem::path plugins;   // the sample transform plugins (short names)
  std::filesystem::path worker;    // the graft_worker executable
  bool ci = false;                 // see snapshot_store.hpp
  int jobs = 1;                    // scenarios run at once
  // What the machine offers; unset: asked of the worker when a scenario with
  // a CUDA rank needs to know (run_scenarios asks once for all).
  std::optional<device_inventory> devices;
  // Who plays the ranks. The Python kinds run `python -m graft.scenario_worker`
  // with python_package (when set) in front of PYTHONPATH.
  grafter_kind grafter = grafter_kind::cpp;
  std::filesystem::path python = "python3";
  std::filesystem::path python_package;
};

struct scenario_result {
  // hang: a worker was still running at the scenario's timeout (and was
  // killed); not_applicable: the grafter cannot take part (grafter_kind.hpp).
  enum class status { pass, fail, skip, error, hang, not_applicable };
  std::string name;
  status outcome = status::pass;
  std::vector<std::string> problems;  // what differed (fail), why it could not run (error, hang) or was not
                                      // run (skip, not_applicable)
  std::string note;                   // e.g. "new snapshot, needs review"
  double seconds = 0;
};

std::string_view to_string(scenario_result::status s);
// The same in lower case ("pass", "fail", "skip", "error", "hang",
// "not_applicable"), as summary.json,
// JUnit and --json say it.
std::string result_name(scenario_result::status s);

// Why options.grafter's workers cannot play here, asked once of the Python
// interpreter before any scenario starts (it cannot be started, graft or
// sglang's dumper does not import); nullopt when they can, and for the C++
// worker (run_environment_problems checks that one).
std::optional<std::string> python_worker_problem(const runner_options& options);

// Runs one scenario end to end.
scenario_result run_scenario(const scenario& s, const runner_options& options);

// Runs them all (options.jobs at once) and calls on_done as each finishes
// (index = completion count, from 1), serialised.
std::vector<scenario_result> run_scenarios(
    const std::vector<scenario>& scenarios, const runner_options& options,
    const std::function<void(std::size_t index, std::size_t total, const scenario_result&)>& on_done);

// The exit code of `graft run` for these results: 1 when any failed, hung or
// had an error, kExitAllSkipped when every one was skipped or not applicable
// (nothing was checked), else 0.
inline constexpr int kExitAllSkipped = 77;
int run_exit_code(const std::vector<scenario_result>& results);

// The summary table printed at the end, one row per scenario, then the counts.
std::string summary_table(const std::vector<scenario_result>& results);

// The results as JSON (schema_version 1, with the graft version), as
// reports/summary.json holds them and graft run --json prints them.
nlohmann::json summary_json(const std::vector<scenario_result>& results);
void write_summary(const std::filesystem::path& path, const std::vector<scenario_result>& results);

}  // namespace graft::harness
