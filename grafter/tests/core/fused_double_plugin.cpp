// A doubling transform that opts in to the fused path, for fused_graft_test.
// Its plan throws for one tag value, to show the firewall turns that into "no plan".

#include <optional>
#include <stdexcept>

#include <ATen/ATen.h>

#include <graft/plugin.hpp>

namespace {

at::Tensor double_own_rank(const graft::graft_transform_input& in) {
  return in.received_list.at(static_cast<std::size_t>(in.recv_rank)) * 2;
}

std::optional<graft::fused_plan> double_plan(const graft::graft_transform_input& in) {
  if (in.tags.contains("refuse_plan")) throw std::runtime_error("plan refused");
  return graft::fused_plan{static_cast<std::size_t>(in.recv_rank), 2.0};
}

}  // namespace

GRAFT_REGISTER_FUSED_TRANSFORM(fused_double, double_own_rank, double_plan)
