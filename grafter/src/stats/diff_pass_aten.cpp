// compare() for tensors off the CPU: ATen ops in float64, run on the device
// that holds x. Several passes over the data, but one copy to the host. Two
// float32 or two bfloat16 tensors differ by their float32 difference, as on
// the CPU (kFloatDifference).

#include <cstdint>

#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>

#include "stats/passes.hpp"

namespace graft::detail {

diff_metrics aten_diff_pass(const at::Tensor& x, const at::Tensor& y) {
  const at::Tensor xd = x.to(at::kDouble).flatten();
  const at::Tensor yd = y.to(x.device(), at::kDouble).flatten();
  const at::ScalarType type = x.scalar_type();
  const bool float_difference = type == y.scalar_type() && (type == at::kFloat || type == at::kBFloat16);
  const at::Tensor d =
      float_difference ? (x.to(at::kFloat) - y.to(x.device(), at::kFloat)).to(at::kDouble).flatten() : xd - yd;
  const at::Tensor abs_d = d.abs();
  // max over a dimension propagates NaN and returns the first maximal index.
  const auto [max_abs, max_index] = abs_d.max(0);
  const at::Tensor host = at::stack({(xd * xd).sum(), (yd * yd).sum(), (xd * yd).sum(),
                                     (d * d).sum(), (d * xd).sum(), abs_d.sum(), max_abs,
                                     max_index.to(at::kDouble),
                                     at::isnan(xd).sum().to(at::kDouble),
                                     at::isinf(xd).sum().to(at::kDouble),
                                     at::isnan(yd).sum().to(at::kDouble),
                                     at::isinf(yd).sum().to(at::kDouble)})
                              .cpu();
  const double* v = host.data_ptr<double>();

  diff_metrics m;
  m.numel = xd.numel();
  m.sum_xx = v[0];
  m.sum_yy = v[1];
  m.sum_xy = v[2];
  m.sum_dd = v[3];
  m.sum_dx = v[4];
  m.sum_abs = v[5];
  m.max_abs = v[6];
  // Counts and indices travel as doubles: exact up to 2^53 elements.
  m.max_abs_index = static_cast<std::int64_t>(v[7]);
  m.x_nan = static_cast<std::int64_t>(v[8]);
  m.x_inf = static_cast<std::int64_t>(v[9]);
  m.y_nan = static_cast<std::int64_t>(v[10]);
  m.y_inf = static_cast<std::int64_t>(v[11]);
  return m;
}

}  // namespace graft::detail
