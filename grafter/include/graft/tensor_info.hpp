#pragma once
// A summary of one tensor for logs and events: layout plus statistics.
// As JSON, a layout-only summary has "measured": false and no statistics.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <graft/shape_string.hpp>

namespace at {
class Tensor;
}

namespace graft {

struct tensor_info {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;
  std::string dtype;   // "float32", "bfloat16", ...
  std::string device;  // "cpu", "cuda:0"
  std::int64_t numel = 0;
  // False for a layout-only description (describe_layout): no pass over the
  // values, so no statistics at all, not even counts.
  bool measured = true;
  // Over finite elements, as float64; empty when there are none.
  std::optional<double> min, max, mean;
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
};

// Describes t (which must be defined). Never throws for any dtype: statistics
// stay empty for dtypes without an order (complex) or storage (meta).
tensor_info describe(const at::Tensor& t);

// Shape, stride, dtype, device and numel only, without reading a value: for
// grafts run with measure=off. A nested tensor has no single shape: its shape
// and stride stay empty.
tensor_info describe_layout(const at::Tensor& t);

// "float32" for at::kFloat, as torch prints it without the "torch." prefix.
std::string dtype_name(const at::Tensor& t);

void to_json(nlohmann::json& out, const tensor_info& info);

}  // namespace graft
