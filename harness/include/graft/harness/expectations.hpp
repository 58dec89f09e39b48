#pragma once
// Checking a scenario's expectations against what its workers reported.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/scenario.hpp>

namespace graft::harness {

// Worker results (worker_protocol.hpp) by (side, local rank); an absent rank has none.
using worker_results = std::map<std::pair<graft::role, int>, nlohmann::json>;

// The outcome word of a list of events: that of the last one other than
// group_init (send -> sent, recv_grafted -> grafted, recv_skipped -> skipped,
// others by kind), "none" when there is none.
std::string outcome_of(const nlohmann::json& events);

// One line per unmet expectation, "steps[1] 'x' target rank 0: expected ...,
// got ...". Empty when all hold. Without events (a grafter that emits none),
// only what the values and bytes show is checked: values, relations,
// unchanged, dtype.
std::vector<std::string> check_expectations(const scenario& s, const worker_results& results, bool events = true);

}  // namespace graft::harness
