#pragma once
// The `graft` subcommands. Each returns the process exit code: 0 success,
// 1 a failure or difference, 2 bad input.

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <graft/harness/grafter_kind.hpp>
#include <graft/harness/runner.hpp>
#include <graft/harness/scenario.hpp>

namespace graft::harness::cli {

struct paths {
  std::filesystem::path fixtures;
  std::filesystem::path reports;
  std::filesystem::path plugins;
  std::filesystem::path worker;
  std::filesystem::path python;          // the Python scenario workers' interpreter
  std::filesystem::path python_package;  // put in front of their PYTHONPATH when set

  std::filesystem::path scenarios() const { return fixtures / "scenarios"; }
  std::filesystem::path goldens() const { return fixtures / "snapshots"; }
  std::filesystem::path snapshots() const { return reports / "snapshots"; }
  std::filesystem::path runs() const { return reports / "runs"; }
  std::filesystem::path summary() const { return reports / "summary.json"; }
};

// Resolves targets (files, folders, scenario names) to scenario files; an
// empty list means every scenario. Sets *full when the whole folder was chosen.
// Throws fixture_error naming a target that is none of these.
std::vector<std::filesystem::path> resolve_targets(const paths& p, const std::vector<std::string>& targets, bool* full);

// What would spoil every scenario of a run alike, before any starts: a worker
// that cannot be started, a plugins path that is no folder, a reports folder
// that cannot be written, has a file or folder where a run writes the other,
// or whose snapshots/ is the goldens' folder. One line each, naming the
// option and the fix.
std::vector<std::string> run_environment_problems(const paths& p);

// A scenario folder as graft list and graft update --prune see it: the
// scenarios that load, a problem line for each file that does not, and the
// names that own a golden (a broken file keeps its golden by its file name).
struct scenario_listing {
  std::vector<scenario> scenarios;
  std::vector<std::string> problems;
  std::set<std::string> names;
};
// Throws fixture_error when the scenarios folder cannot be listed.
scenario_listing list_scenarios(const paths& p);

struct run_request {
  std::vector<std::string> targets;
  int jobs = 1;
  std::optional<std::filesystem::path> junit;  // write JUnit XML there too
  bool json = false;                           // summary as JSON on stdout, progress on stderr
  grafter_kind grafter = grafter_kind::cpp;    // who plays the ranks
};
int run_command(const paths& p, const run_request& request);

// What graft run and graft conformance do before playing: load the targets
// (full: the whole folder was chosen), refuse duplicate names, check the
// paths and that grafter's workers can start. An exit code when something is
// wrong (said on stderr after "COMMAND: "), else nullopt.
std::optional<int> prepare_run(const std::string& command, const paths& p, const std::vector<std::string>& targets,
                               grafter_kind grafter, std::vector<scenario>* scenarios, bool* full);
runner_options runner_options_for(const paths& p, grafter_kind grafter, int jobs);

// Plays every CPU scenario among the targets (all by default) with each
// grafter kind, each into REPORTS/conformance/KIND/, and writes the table to
// REPORTS/conformance.md and conformance.json and the report page. Exit 1
// when a cell of graft's own failed (conformance.hpp), 2 bad input or a
// Python worker that cannot start.
int conformance_command(const paths& p, const std::vector<std::string>& targets, int jobs);
int diff_command(const std::string& expected, const std::string& actual, bool json);
int update_command(const paths& p, const std::vector<std::string>& names, bool prune);
int list_command(const paths& p, bool json);
// Prints a transform plugin library's registry: its plugin ABI and libtorch
// versions, then each transform, one a line, and whether it has a fused plan.
// library is opened as a transform spec's LIBRARY is. 2 when it is no plugin
// graft can load.
int plugins_command(const std::string& library);

// How graft review decides: by asking on stdin, or the same for every one.
enum class review_mode { ask, accept_all, reject_all };
// When to colour: auto is a terminal on stdout with NO_COLOR unset or empty.
enum class colour_mode { automatic, always, never };
int review_command(const paths& p, const std::vector<std::string>& names, review_mode mode, colour_mode colour);

}  // namespace graft::harness::cli
