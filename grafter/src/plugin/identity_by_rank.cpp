// The default transform: receiver i takes sender i, unchanged. Its messages
// keep the reference's wording, so logs read the same across both tools.

#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

#include <graft/error.hpp>
#include <graft/transform.hpp>

#include <graft/shape_string.hpp>

namespace graft {
namespace {

[[noreturn]] void fail(const std::string& detail) {
  throw transform_error("no transform set; default identity-by-rank " + detail +
                        ". Provide a transform via DUMPER_GRAFTER_TRANSFORM_PATH=LIBRARY:SYMBOL "
                        "(see docs/transforms.md).");
}

at::Tensor take_own_rank(const graft_transform_input& in) {
  const auto senders = static_cast<int>(in.received_list.size());
  if (senders != in.recv_world_size) {
    fail("requires #senders == #recvs but got #senders=" + std::to_string(senders) +
         " vs #recvs=" + std::to_string(in.recv_world_size));
  }
  if (in.recv_rank < 0 || in.recv_rank >= senders) {
    fail("needs a receiver rank in [0, " + std::to_string(senders) +
         ") but got recv_rank=" + std::to_string(in.recv_rank));
  }
  const std::string slot = "received_list[" + std::to_string(in.recv_rank) + "]";
  const at::Tensor& candidate = in.received_list[in.recv_rank];
  if (!candidate.defined()) fail("found no tensor in " + slot + " (undefined)");
  if (candidate.sizes() != in.target.sizes()) {
    fail("requires matching shapes but " + slot +
         ".shape=" + shape_string(candidate.sizes().vec()) +
         " != target.shape=" + shape_string(in.target.sizes().vec()));
  }
  return candidate;
}

// The candidate is sender recv_rank's tensor itself whenever take_own_rank
// would succeed; otherwise no plan, and take_own_rank reports the problem.
std::optional<fused_plan> own_rank_plan(const graft_transform_input& in) {
  const auto senders = static_cast<int>(in.received_list.size());
  if (senders != in.recv_world_size || in.recv_rank < 0 || in.recv_rank >= senders) {
    return std::nullopt;
  }
  const at::Tensor& candidate = in.received_list[in.recv_rank];
  if (!candidate.defined() || candidate.sizes() != in.target.sizes()) return std::nullopt;
  return fused_plan{static_cast<std::size_t>(in.recv_rank), 1.0};
}

}  // namespace

transform identity_by_rank() {
  return transform{"identity_by_rank", &take_own_rank, &own_rank_plan};
}

}  // namespace graft
