#pragma once
// The exact oracle of graft's measuring passes: sums over x, y and x - y taken
// in long double, in which the products of float32, bfloat16 and float16
// values are exact (and those of the float64 values the tests use, which
// differ by single bits or stay far from the range's ends), and each
// tensor's own statistics the same way. Every pass that measures
// (compare(), describe(), the measured write, the measure-only receive) is
// checked against it, not against another pass.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/metrics.hpp>

namespace graft_test {

// The sums of x and y in long double: x, y, their difference and their
// squares are exact in long double for float32, bfloat16 and float16 values,
// and for the float64 values below, which differ from each other by single
// bits. The difference is float32's where compare() takes it so.
struct exact_sums {
  long double xx = 0, yy = 0, dd = 0, abs_dx = 0, xx_minus_yy = 0;

  long double rel_diff() const { return dd / (xx + yy); }
  long double cosine_deficit() const {
    const long double norm_x = std::sqrt(xx), norm_y = std::sqrt(yy);
    const long double norm_gap = xx_minus_yy / (norm_x + norm_y);
    return (dd - norm_gap * norm_gap) / (2 * norm_x * norm_y);
  }
};

inline bool takes_float_difference(const at::Tensor& x) {
  return x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16;
}

inline exact_sums exact(const at::Tensor& x, const at::Tensor& y) {
  const at::Tensor d = takes_float_difference(x) ? (x.to(at::kFloat) - y.to(at::kFloat)).to(at::kDouble).contiguous()
                                                 : (x.to(at::kDouble) - y.to(at::kDouble)).contiguous();
  const at::Tensor xd = x.to(at::kDouble).contiguous();
  const at::Tensor yd = y.to(at::kDouble).contiguous();
  const double* xp = xd.data_ptr<double>();
  const double* yp = yd.data_ptr<double>();
  const double* dp = d.data_ptr<double>();
  exact_sums s;
  for (std::int64_t i = 0; i < xd.numel(); ++i) {
    const long double a = xp[i], b = yp[i], diff = dp[i];
    s.xx += a * a;
    s.yy += b * b;
    s.dd += diff * diff;
    s.abs_dx += std::fabs(diff * a);
    s.xx_minus_yy += (a - b) * (a + b);
  }
  return s;
}

// |actual - expected| <= bound.
inline void expect_within(double actual, long double expected, long double bound, const std::string& what) {
  EXPECT_LE(std::fabs(static_cast<long double>(actual) - expected), bound)
      << what << ": " << actual << " vs " << static_cast<double>(expected);
}

// rel_diff within `relative` of its value; cosine within `relative` times
// rel_diff, give or take the spacing of doubles just below 1 (2^-53): a double
// holds a cosine of 1 - 1e-33 only as 1.
inline void expect_exact_metrics(const graft::diff_metrics& m, const exact_sums& want, double relative) {
  ASSERT_GT(want.dd, 0) << "the case needs differing tensors";
  expect_within(m.rel_diff(), want.rel_diff(), relative * want.rel_diff(), "rel_diff");
  expect_within(m.cosine(), 1 - want.cosine_deficit(), relative * want.rel_diff() + std::ldexp(1.0L, -53),
                "cosine");
}

// Every 7th value one step (one unit in the last place) away from zero: the
// tensors agree to the dtype's precision, rel_diff is about 1e-15 for
// float32. On the bits, as libtorch 1.13 has no nextafter for float16.
inline at::Tensor one_step_up_every_7th(const at::Tensor& x) {
  at::Tensor y = x.clone();
  const at::ScalarType bits = x.element_size() == 2   ? at::kShort
                              : x.element_size() == 4 ? at::kInt
                                                      : at::kLong;
  at::Tensor strided = y.view(-1).view(bits).slice(0, 0, y.numel(), 7);
  strided.add_(1);
  return y;
}

// One tensor's statistics over its values as float64, the sum in long double.
struct exact_value_stats {
  std::int64_t nan_count = 0, inf_count = 0, finite_count = 0;
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  long double sum = 0, sum_abs = 0;
};

inline exact_value_stats exact_stats(const at::Tensor& t) {
  const at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  exact_value_stats s;
  for (std::int64_t i = 0; i < d.numel(); ++i) {
    if (std::isnan(p[i])) {
      ++s.nan_count;
    } else if (std::isinf(p[i])) {
      ++s.inf_count;
    } else {
      ++s.finite_count;
      s.min = std::min(s.min, p[i]);
      s.max = std::max(s.max, p[i]);
      s.sum += p[i];
      s.sum_abs += std::fabs(p[i]);
    }
  }
  return s;
}

}  // namespace graft_test
