#include "exchange/graftable.hpp"

#include <sstream>

#include <c10/core/Layout.h>

#include <graft/tensor_info.hpp>

namespace graft::detail {

std::optional<std::string> ungraftable_reason(const at::Tensor& t) {
  if (t.is_nested()) {
    return std::string("it is a nested tensor, and only strided (dense) tensors can be grafted; "
                       "pass a padded dense tensor (to_padded_tensor) instead");
  }
  if (t.layout() != at::kStrided) {
    std::ostringstream layout;
    layout << t.layout();
    return "its layout is " + layout.str() +
           ", and only strided (dense) tensors can be grafted; convert it with to_dense() before the dump call";
  }
  if (t.is_quantized()) {
    return "it is quantized (" + dtype_name(t) +
           "), and only plain dtypes can be grafted; dequantize() it before the dump call";
  }
  if (t.is_meta()) {
    return std::string("it is on the meta device and holds no values; run the dump call on a real device (cpu or cuda)");
  }
  return std::nullopt;
}

}  // namespace graft::detail
