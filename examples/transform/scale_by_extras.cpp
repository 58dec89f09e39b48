// A transform plugin: scales this receiver's sender tensor by the factor the
// sender put in its extras ({"scale": 0.5}), or by 1 when there is none.
#include <ATen/ATen.h>
#include <graft/plugin.hpp>

namespace {

at::Tensor scale_by_extras(const graft::graft_transform_input& in) {
  const auto rank = static_cast<std::size_t>(in.recv_rank);
  const nlohmann::json& extras = in.received_extras_list.at(rank);
  const double scale = extras.is_object() ? extras.value("scale", 1.0) : 1.0;
  return in.received_list.at(rank) * scale;
}

}  // namespace

GRAFT_REGISTER_TRANSFORM(scale_by_extras, scale_by_extras)
