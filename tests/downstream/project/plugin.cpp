// A plugin built against the installed graft: negate, with a fused plan.
#include <optional>

#include <ATen/ATen.h>
#include <graft/plugin.hpp>

namespace {

at::Tensor negate(const graft::graft_transform_input& in) { return -in.received_list.at(0); }

std::optional<graft::fused_plan> negate_plan(const graft::graft_transform_input&) {
  return graft::fused_plan{0, -1.0};
}

}  // namespace

GRAFT_REGISTER_FUSED_TRANSFORM(negate, negate, negate_plan)
