// The ATen pass serves tensors off the CPU; run on CPU tensors it must agree
// with the hand-written pass, which keeps it honest on machines without GPU.

#include <cmath>
#include <cstdint>
#include <limits>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "stats/passes.hpp"

namespace {

// relative: the sums' precision, relative to the magnitude of their terms
// (the CPU pass sums float32 and bfloat16 in float32 blocks, the ATen pass
// everything in float64).
void expect_same_diff(const graft::diff_metrics& a, const graft::diff_metrics& b, double relative = 1e-12) {
  const auto near = [relative](double x, double y, double magnitude) {
    if (std::isnan(x) || std::isnan(y)) {
      EXPECT_EQ(std::isnan(x), std::isnan(y));
    } else if (std::isinf(y)) {
      EXPECT_EQ(x, y);
    } else {
      EXPECT_NEAR(x, y, relative * magnitude);
    }
  };
  EXPECT_EQ(a.numel, b.numel);
  near(a.sum_xx, b.sum_xx, b.sum_xx);
  near(a.sum_yy, b.sum_yy, b.sum_yy);
  // sum |xy| <= |x| |y| and sum |(x-y)x| <= |x - y| |x|.
  near(a.sum_xy, b.sum_xy, std::sqrt(b.sum_xx * b.sum_yy));
  near(a.sum_dd, b.sum_dd, b.sum_dd);
  near(a.sum_dx, b.sum_dx, std::sqrt(b.sum_dd * b.sum_xx));
  near(a.sum_abs, b.sum_abs, b.sum_abs);
  near(a.max_abs, b.max_abs, 0);  // the same differences: the same largest
  EXPECT_EQ(a.max_abs_index, b.max_abs_index);
  EXPECT_EQ(a.x_nan, b.x_nan);
  EXPECT_EQ(a.x_inf, b.x_inf);
  EXPECT_EQ(a.y_nan, b.y_nan);
  EXPECT_EQ(a.y_inf, b.y_inf);
}

TEST(diff_passes, agree_on_random_data) {
  at::manual_seed(1);
  const at::Tensor x = at::randn({200, 1000});
  const at::Tensor y = (x + 0.1 * at::randn({200, 1000})).to(at::kDouble);
  expect_same_diff(graft::detail::cpu_diff_pass(x, y), graft::detail::aten_diff_pass(x, y));
}

TEST(diff_passes, agree_on_non_finite_values_and_ties) {
  const at::Tensor x = at::zeros({100'000});
  at::Tensor y = at::zeros({100'000});
  y[40'000] = 5.0;
  y[70'000] = -5.0;  // a tie in a later chunk: the first index wins
  y[90'000] = std::numeric_limits<float>::infinity();
  x[95'000] = std::numeric_limits<float>::quiet_NaN();
  const graft::diff_metrics inf_only =
      graft::detail::cpu_diff_pass(x.slice(0, 0, 95'000), y.slice(0, 0, 95'000));
  EXPECT_EQ(inf_only.max_abs_index, 90'000);
  expect_same_diff(inf_only, graft::detail::aten_diff_pass(x.slice(0, 0, 95'000),
                                                           y.slice(0, 0, 95'000)));
  const graft::diff_metrics ties =
      graft::detail::cpu_diff_pass(x.slice(0, 0, 80'000), y.slice(0, 0, 80'000));
  EXPECT_EQ(ties.max_abs_index, 40'000);
  expect_same_diff(ties, graft::detail::aten_diff_pass(x.slice(0, 0, 80'000),
                                                       y.slice(0, 0, 80'000)));
  const graft::diff_metrics with_nan = graft::detail::cpu_diff_pass(x, y);
  EXPECT_EQ(with_nan.max_abs_index, 95'000);
  EXPECT_EQ(with_nan.x_nan, 1);
  EXPECT_EQ(with_nan.y_inf, 1);
  expect_same_diff(with_nan, graft::detail::aten_diff_pass(x, y));
}

TEST(diff_passes, agree_on_low_precision_and_integer_dtypes) {
  at::manual_seed(2);
  const at::Tensor base = at::randn({50'000});
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kHalf, at::kChar, at::kLong}) {
    SCOPED_TRACE(c10::toString(type));
    const at::Tensor x = (base * 4).to(type);
    const at::Tensor y = (base * 4 + 1).to(type);
    const bool float_sums = type == at::kFloat || type == at::kBFloat16;
    expect_same_diff(graft::detail::cpu_diff_pass(x, y), graft::detail::aten_diff_pass(x, y),
                     float_sums ? 2e-6 : 1e-12);
  }
}

TEST(value_passes, agree_including_non_finite_values) {
  at::manual_seed(4);
  at::Tensor t = at::randn({123'456});
  t[17] = std::numeric_limits<float>::quiet_NaN();
  t[99'999] = -std::numeric_limits<float>::infinity();
  for (const at::ScalarType type :
       {at::kFloat, at::kBFloat16, at::kHalf, at::kDouble, at::kInt, at::kLong, at::kBool}) {
    const bool integral = type == at::kInt || type == at::kLong;
    const at::Tensor v = (integral ? t.nan_to_num(0, 0, 0) * 10 : t).to(type);
    const graft::detail::value_stats a = graft::detail::cpu_value_stats(v);
    const graft::detail::value_stats b = graft::detail::aten_value_stats(v);
    EXPECT_EQ(a.nan_count, b.nan_count);
    EXPECT_EQ(a.inf_count, b.inf_count);
    EXPECT_EQ(a.finite_count, b.finite_count);
    EXPECT_EQ(a.min, b.min);
    EXPECT_EQ(a.max, b.max);
    EXPECT_NEAR(a.sum, b.sum, 1e-9 * std::abs(b.sum) + 1e-9);
  }
}

}  // namespace
