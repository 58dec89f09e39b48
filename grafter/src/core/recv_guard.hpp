#pragma once
// The receive side of one graft, as one guarded step: transform, validate,
// convert, measure (unless measure=off), copy (unless compare-only). Any
// failure leaves the target bit for bit unchanged and comes back as a
// recv_skipped outcome with its error kind.

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/event.hpp>
#include <graft/exchange.hpp>
#include <graft/metrics.hpp>
#include <graft/role.hpp>
#include <graft/tags.hpp>
#include <graft/tensor_info.hpp>
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
  // false (a compare-only name): everything a graft does but the write; the
  // event is the graft's, bit for bit, and the target is only read.
  bool write = true;
};

// What one graft did, as values: the graft itself builds no JSON, so its cost
// is the work on the tensors; the event's fields come from fields() when the
// event is written.
struct recv_outcome {
  bool grafted = false;
  std::size_t n_senders = 0;
  std::vector<int> sender_ranks;
  std::vector<nlohmann::json> sender_extras;
  std::optional<std::string> transform;  // absent when it failed to load
  // "float64 -> float32", "cuda:0 -> cpu": what conforming the candidate did.
  std::optional<std::string> cast, moved;
  tensor_info before;  // the target before the graft (unchanged when skipped)
  std::optional<tensor_info> candidate;
  std::optional<diff_metrics> metrics;  // measured grafts only
  skip_kind error_kind = skip_kind::internal;  // skipped only
  std::string message;                         // skipped only

  // recv_grafted / recv_skipped, or compare / compare_skipped for a
  // compare-only call.
  event_kind kind(bool compare_only) const {
    if (compare_only) return grafted ? event_kind::compare : event_kind::compare_skipped;
    return grafted ? event_kind::recv_grafted : event_kind::recv_skipped;
  }
  // The event's kind-specific fields.
  nlohmann::json fields() const;
};

recv_outcome graft_received(recv_request request);

}  // namespace graft::detail
