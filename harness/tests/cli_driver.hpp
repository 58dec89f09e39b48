#pragma once
// Drives the real `graft` executable (GRAFT_CLI) on files in a temp folder,
// for the CLI tests: its exit code and what it printed.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "process_checks.hpp"
#include "temp_dir.hpp"

namespace graft::harness::testing {

struct command_result {
  int exit_code = -1;
  std::string output;
};

// Runs graft with args (already shell-quoted) and env assignments before it;
// stdout and stderr captured together, or stdout alone when stdout_only.
inline command_result graft(const temp_dir& dir, const std::string& args, const std::string& env = "",
                            bool stdout_only = false) {
  const auto out = dir / "graft_output.txt";
  const std::string command = env + " '" GRAFT_CLI "' " + args + " > '" + out.string() + "'" +
                              (stdout_only ? " 2>/dev/null" : " 2>&1");
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out)};
}

// The env argument of a run outside CI: every variable the CLI reads as CI
// (snapshot_store.hpp: CI and TF_BUILD) unset, whatever CI runs these tests.
inline constexpr const char* kOutsideCi = "env -u CI -u TF_BUILD";

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// A copy of a real scenario (and its golden) in a temp fixtures folder,
// edited; returns the --fixtures and --reports options that point at it.
inline std::string scenario_copy(const temp_dir& dir, const std::string& name,
                                 const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(GRAFT_FIXTURES "/scenarios/" + name + ".json");
  nlohmann::json doc = nlohmann::json::parse(in);
  edit(doc);
  dir.write("fixtures/scenarios/" + name + ".json", doc.dump(2));
  std::filesystem::create_directories(dir / "fixtures/snapshots");
  std::filesystem::copy_file(GRAFT_FIXTURES "/snapshots/" + name + ".json",
                             dir / ("fixtures/snapshots/" + name + ".json"));
  return " --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(dir / "reports");
}

}  // namespace graft::harness::testing
