#pragma once
// One localize pass: every rank of a baseline and a target started as real
// processes on 127.0.0.1 with a fresh port, the grafter configured through
// DUMPER_GRAFTER_* in each child's environment, waited for with a deadline,
// then the target ranks' event files read back. Blocks; never throws for what
// the children do (a failed or late child is a problem in the outcome), only
// for what cannot start (graft::error naming the program).

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft::harness::localize {

// What a placeholder's value becomes: an argument as it is, or, in a command
// line for /bin/sh, quoted for where it stands (bare, in '...' or in "..."),
// so that a path with a space or a quote (--reports '/tmp/my runs') is still
// one word to the program.
enum class placeholder_use { argument, shell_line };

// The command of one side. Every argument is a template: {role}, {rank},
// {world_size} and {events} (the JSON-lines file the rank must write its
// grafter events to) are replaced per rank.
struct side_command {
  std::vector<std::string> argv;
  int world_size = 1;
  placeholder_use placeholders = placeholder_use::argument;
};

// A user's shell command line, run by /bin/sh -c.
side_command shell_command(const std::string& command_line, int world_size);

// Replaces each placeholder in text; unknown {...} stay as they are.
std::string substitute(const std::string& text, const std::map<std::string, std::string>& values,
                       placeholder_use use);

struct pass_spec {
  std::string label;  // "accumulated", "local", "calibration-accumulated", ...
  side_command baseline;
  side_command target;
  // Set: one command that starts every rank of both sides itself (torchrun,
  // an engine's launcher), with {baseline_world_size} and {target_world_size}
  // replaced; baseline and target then only give the world sizes, and each
  // rank's events come from DUMPER_GRAFTER_EVENTS_PATH, named by its grafter
  // from its own role and rank.
  std::optional<side_command> launch;
  // DUMPER_GRAFTER_* filters of this pass: key (b2t_filter, compare_filter) -> expression.
  std::map<std::string, std::string> filters;
  std::filesystem::path directory;  // logs and event files go here
  std::chrono::seconds timeout{120};
};

struct pass_outcome {
  std::string label;
  // Every target rank's events in file order, each with "rank" added.
  std::vector<nlohmann::json> target_events;
  std::vector<std::string> problems;  // non-zero exits, late ranks, unreadable lines
  bool ok() const { return problems.empty(); }
};

pass_outcome run_pass(const pass_spec& spec);

}  // namespace graft::harness::localize
