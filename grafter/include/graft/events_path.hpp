#pragma once
// The events_path setting (DUMPER_GRAFTER_EVENTS_PATH): a JSON-lines file each
// grafter also writes its events to, so that any host program building its
// grafter from the environment logs where the user says, with no flag of its
// own. One pattern serves every rank of a world through its placeholders:
//   {role}        baseline | target
//   {rank}        the rank on its own side
//   {graft_rank}  the rank in the graft world (baseline ranks first)
//   {pid}         the process id
// e.g. DUMPER_GRAFTER_EVENTS_PATH=/tmp/run1/events-{role}-{rank}.jsonl

#include <optional>
#include <string>
#include <string_view>

namespace graft {

// What is wrong with the pattern (an unknown placeholder, a '{' or '}' that
// opens or closes none, an empty path), or nullopt.
std::optional<std::string> events_path_problem(std::string_view pattern);

// The pattern with its placeholders filled in; the pattern must be valid.
std::string expand_events_path(std::string_view pattern, std::string_view role, int rank, int graft_rank,
                               long pid);

}  // namespace graft
