#pragma once
// Transforms: what a receiver does with the senders' tensors before they are
// written into its own. A transform sees every sender's tensor and extras and
// returns a candidate; the grafter validates the candidate (shape equal to the
// target's, dtype/device converted and logged) and only then writes it.
//
// A transform may also offer a fused plan: a promise that, for this call, its
// candidate is exactly `scale * received_list[source]` (as ATen computes
// `tensor * scale`). The grafter then skips the temporary and writes the
// values straight into the target in one pass that also measures them, after
// validating everything that can fail. A plan changes cost, never results.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/role.hpp>
#include <graft/tags.hpp>

namespace graft {

struct graft_transform_input {
  const graft::tags& tags;
  // One per sender, sender-rank order, on the target's device. Their memory
  // serves the next call unless a tensor (or a view) of it is still held:
  // keep the at::Tensor, never a bare data pointer.
  std::vector<at::Tensor> received_list;
  std::vector<nlohmann::json> received_extras_list;  // one per sender; null when omitted
  const at::Tensor& target;                          // read-only: a write skips the call
  graft::direction direction;
  int recv_rank;                                     // this receiver's local rank on its side
  int recv_world_size;                               // receivers on this side
  std::vector<int> sender_ranks;                     // senders' local ranks on their side
};

using transform_fn = std::function<at::Tensor(const graft_transform_input&)>;

// candidate = scale * received_list[source]. scale == 1 means the source's
// values exactly; otherwise each value is multiplied in the source dtype's
// math type (float for float16/bfloat16) and rounded back to the source dtype.
struct fused_plan {
  std::size_t source = 0;
  double scale = 1.0;
};

// The plan for one call, or nullopt when this call has none (the grafter then
// calls fn). Should not throw; if it does, the grafter falls back to fn.
using fused_plan_fn = std::function<std::optional<fused_plan>(const graft_transform_input&)>;

struct transform {
  std::string name;
  transform_fn fn;
  fused_plan_fn plan = nullptr;  // optional: empty means always call fn
};

// The default: receiver i takes sender i. Requires #senders == #receivers and a
// candidate of the target's shape; otherwise throws transform_error with the
// reference's wording and a request for a transform.
transform identity_by_rank();

}  // namespace graft
