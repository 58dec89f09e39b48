#include <graft/shape_string.hpp>

namespace graft {

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  // Python's tuple repr: a one-element tuple keeps its trailing comma.
  if (shape.size() == 1) out += ",";
  return out + ")";
}

}  // namespace graft
