#pragma once
// Transforms: what a receiver does with the senders' tensors before they are
// written into its own. A transform sees every sender's tensor and extras and
// returns a candidate; the grafter validates the candidate (shape equal to the
// target's, dtype/device converted and logged) and only then writes it.

#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/role.hpp>
#include <graft/tags.hpp>

namespace graft {

struct graft_transform_input {
  const graft::tags& tags;
  std::vector<at::Tensor> received_list;            // one per sender, sender-rank order, on the target's device
  std::vector<nlohmann::json> received_extras_list;  // one per sender; null when omitted
  const at::Tensor& target;                          // read-only by contract
  graft::direction direction;
  int recv_rank;                                     // this receiver's local rank on its side
  int recv_world_size;                               // receivers on this side
  std::vector<int> sender_ranks;                     // senders' local ranks on their side
};

using transform_fn = std::function<at::Tensor(const graft_transform_input&)>;

struct transform {
  std::string name;
  transform_fn fn;
};

// The default: receiver i takes sender i. Requires #senders == #receivers and a
// candidate of the target's shape; otherwise throws transform_error with the
// reference's wording and a request for a transform.
transform identity_by_rank();

}  // namespace graft
