#pragma once
// From a pass's target events to one measurement per dump point.
//
// A point is identified across passes by its tags and its occurrence (the
// second call with the same tags is another point), so user programs that
// dump a name per step or per micro-batch still line up. "compare" events
// (and, in the local pass, the "recv_grafted" events of the grafted inputs)
// carry the metrics; with several target ranks a point keeps its worst rank.
// Any other non-routine event (recv_skipped, desync, group_error, ...) is a
// problem of the pass.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/localize/passes.hpp>

namespace graft::harness::localize {

struct measurement {
  double rel_diff = 0;  // NaN when the metrics said so (counts as broken)
  double max_abs = 0;
  std::string own_dtype;    // the target tensor's dtype
  std::string other_dtype;  // the baseline's (transformed) tensor's dtype
  bool grafted = false;     // a recv_grafted input rather than a compare
};

struct measured_point {
  std::string key;  // tags JSON + "#occurrence"
  std::string name;
  std::optional<std::int64_t> layer_id;
  std::string label;  // "attn_output[2]", or the name alone without a layer_id
  nlohmann::json tags;
  measurement value;
};

struct pass_measurements {
  std::string label;
  std::vector<measured_point> points;  // in execution order
  std::vector<std::string> problems;
};

pass_measurements measure(const pass_outcome& outcome);

// A metrics value, NaN/Inf strings included ("NaN", "Inf", "-Inf", "-0.0").
double metric_number(const nlohmann::json& value);

}  // namespace graft::harness::localize
