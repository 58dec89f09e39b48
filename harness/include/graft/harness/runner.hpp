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
};

struct scenario_result {
  enum class status { pass, fail, skip, error };
  std::string name;
  status outcome = status::pass;
  std::vector<std::string> problems;  // what differed (fail), why it could not run (error) or was not run (skip)
  std::string note;                   // e.g. "new snapshot, needs review"
  double seconds = 0;
};

std::string_view to_string(scenario_result::status s);
// The same in lower case ("pass", "fail", "skip", "error"), as summary.json,
// JUnit and --json say it.
std::string result_name(scenario_result::status s);

// Runs one scenario end to end.
scenario_result run_scenario(const scenario& s, const runner_options& options);

// Runs them all (options.jobs at once) and calls on_done as each finishes
// (index = completion count, from 1), serialised.
std::vector<scenario_result> run_scenarios(
    const std::vector<scenario>& scenarios, const runner_options& options,
    const std::function<void(std::size_t index, std::size_t total, const scenario_result&)>& on_done);

// The exit code of `graft run` for these results: 1 when any failed or had an
// error, kExitAllSkipped when every one was skipped (nothing was checked), else 0.
inline constexpr int kExitAllSkipped = 77;
int run_exit_code(const std::vector<scenario_result>& results);

// The summary table printed at the end, one row per scenario, then the counts.
std::string summary_table(const std::vector<scenario_result>& results);

// The results as JSON (schema_version 1, with the graft version), as
// reports/summary.json holds them and graft run --json prints them.
nlohmann::json summary_json(const std::vector<scenario_result>& results);
void write_summary(const std::filesystem::path& path, const std::vector<scenario_result>& results);

}  // namespace graft::harness
