#pragma once
// The receive side of one graft, as one guarded step: transform, validate,
// convert, measure (unless measure=off), copy. Any failure leaves the target bit for bit unchanged
// and comes back as a recv_skipped event with its error kind.

#include <string>
#include <utility>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/exchange.hpp>
#include <graft/role.hpp>
#include <graft/tags.hpp>
#include <graft/transform.hpp>

namespace graft::detail {

struct recv_request {
  const tags& call_tags;
  direction dir;
  const rank_layout& layout;
  const at::Tensor& target;
  received incoming;
  const transform* chosen;            // null when the transform failed to load
  const std::string& transform_problem;
  // false (measure=off): the event describes layouts only and carries no
  // metrics; the target is written exactly as with measuring.
  bool measure = true;
};

// Returns the event: ("recv_grafted", fields) or ("recv_skipped", fields).
std::pair<std::string, nlohmann::json> graft_received(recv_request request);

}  // namespace graft::detail
