#pragma once
// The `graft` subcommands. Each returns the process exit code: 0 success,
// 1 a failure or difference, 2 bad input.

#include <filesystem>
#include <string>
#include <vector>

#include <graft/harness/scenario.hpp>

namespace graft::harness::cli {

struct paths {
  std::filesystem::path fixtures;
  std::filesystem::path reports;
  std::filesystem::path plugins;
  std::filesystem::path worker;

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

int run_command(const paths& p, const std::vector<std::string>& targets, int jobs);
int diff_command(const std::string& expected, const std::string& actual);
int update_command(const paths& p, const std::vector<std::string>& names);
int list_command(const paths& p);

}  // namespace graft::harness::cli
