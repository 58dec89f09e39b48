#include "plugin/shape_format.hpp"

namespace graft::detail {

std::string python_shape(c10::IntArrayRef sizes) {
  std::string out = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) out += ",";
  return out + ")";
}

}  // namespace graft::detail
