#pragma once
// The reductions behind describe() and compare(), each in two flavours: a
// hand-written one-pass loop for CPU tensors, and ATen ops in float64 for
// tensors on any other device (they run where the data lives).

#include <cstdint>

#include <c10/core/ScalarType.h>

#include <graft/metrics.hpp>

namespace at {
class Tensor;
}

namespace graft::detail {

// Dtypes with ordered real values (floating, integral, bool): the ones both
// passes accept. Complex and quantized dtypes are not among them.
inline bool is_real_dtype(at::ScalarType type) {
  return at::isFloatingType(type) || at::isIntegralType(type, /*includeBool=*/true);
}

// The dtypes the hand-written CPU loops are instantiated for; other real
// dtypes go through float64 (compare) or the ATen pass (describe).
inline bool has_cpu_loop(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
    case at::kDouble:
    case at::kHalf:
    case at::kBFloat16:
    case at::kByte:
    case at::kChar:
    case at::kShort:
    case at::kInt:
    case at::kLong:
    case at::kBool:
      return true;
    default:
      return false;
  }
}

// Statistics of one tensor's values; min/max/sum cover the finite ones only.
struct value_stats {
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  std::int64_t finite_count = 0;
  double min = 0, max = 0, sum = 0;
};

// x and y: same shape, numel > 0, real (floating, integral or bool) dtypes.
// The CPU pass takes CPU tensors of any layout and dtype pair; the ATen pass
// takes any device and reads y on x's device. Both fill the sums, the
// maximum with its flat index, the counts and numel; outcome stays ok.
diff_metrics cpu_diff_pass(const at::Tensor& x, const at::Tensor& y);
diff_metrics aten_diff_pass(const at::Tensor& x, const at::Tensor& y);

// t: numel > 0, real dtype. The CPU pass takes a CPU tensor.
value_stats cpu_value_stats(const at::Tensor& t);
value_stats aten_value_stats(const at::Tensor& t);

}  // namespace graft::detail
