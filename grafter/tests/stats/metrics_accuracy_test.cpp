// How exact the derived metrics are, against sums taken in long double over
// exact terms: rel_diff and 1 - cosine keep their relative precision even
// when the two tensors agree to the last bit of most values, where the
// difference of two large sums that are nearly equal would leave only their
// rounding errors.

#include <graft/metrics.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace {

// rel_diff and 1 - cosine of x and y from long double sums of exact terms:
// x, y, their difference and their squares are exact in long double for
// float32, bfloat16 and float16 values (and for the float64 values below,
// which differ from each other by single bits).
struct exact_metrics {
  long double rel_diff = 0, cosine_deficit = 0;
};

exact_metrics exact(const at::Tensor& x, const at::Tensor& y) {
  const at::Tensor xd = x.to(at::kDouble).contiguous();
  const at::Tensor yd = y.to(at::kDouble).contiguous();
  const double* xp = xd.data_ptr<double>();
  const double* yp = yd.data_ptr<double>();
  long double xx = 0, yy = 0, dd = 0, xx_minus_yy = 0;
  for (std::int64_t i = 0; i < xd.numel(); ++i) {
    const long double a = xp[i], b = yp[i], d = a - b;
    xx += a * a;
    yy += b * b;
    dd += d * d;
    xx_minus_yy += d * (a + b);
  }
  const long double norm_x = std::sqrt(xx), norm_y = std::sqrt(yy);
  const long double norm_gap = xx_minus_yy / (norm_x + norm_y);
  return {dd / (xx + yy), (dd - norm_gap * norm_gap) / (2 * norm_x * norm_y)};
}

// Within `relative` of `expected`, relative to expected.
void expect_close(double actual, long double expected, double relative, const std::string& what) {
  const auto error = static_cast<double>(std::fabs(static_cast<long double>(actual) - expected));
  EXPECT_LE(error, relative * static_cast<double>(std::fabs(expected)))
      << what << ": " << actual << " vs " << static_cast<double>(expected);
}

// cosine within `relative` of 1 - deficit, relative to the deficit, give or
// take the spacing of doubles just below 1 (2^-53): a double can hold a
// cosine of 1 - 1e-33 only as 1.
void expect_cosine_close(double cosine, long double deficit, double relative) {
  const auto error = static_cast<double>(std::fabs(static_cast<long double>(cosine) - (1 - deficit)));
  EXPECT_LE(error, relative * static_cast<double>(deficit) + std::ldexp(1.0, -53))
      << "1 - cosine: " << 1.0 - cosine << " vs " << static_cast<double>(deficit);
}

void expect_exact_metrics(const at::Tensor& x, const at::Tensor& y, double relative) {
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_metrics want = exact(x, y);
  ASSERT_GT(want.rel_diff, 0) << "the case needs differing tensors";
  expect_close(m.rel_diff(), want.rel_diff, relative, "rel_diff");
  expect_cosine_close(m.cosine(), want.cosine_deficit, relative);
}

// Every 7th value one step (one unit in the last place) up: the tensors agree
// to the dtype's precision, rel_diff is about 1e-15 for float32.
at::Tensor one_step_up_every_7th(const at::Tensor& x) {
  at::Tensor y = x.clone();
  at::Tensor strided = y.view(-1).slice(0, 0, y.numel(), 7);
  strided.copy_(at::nextafter(strided, at::full_like(strided, INFINITY)));
  return y;
}

TEST(metrics_accuracy, tensors_that_agree_to_the_last_bit) {
  at::manual_seed(21);
  const std::int64_t n = 1'000'003;  // many chunks, the last one partial
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kDouble}) {
    SCOPED_TRACE(c10::toString(type));
    const at::Tensor x = at::randn({n}, at::kDouble).to(type);
    expect_exact_metrics(x, one_step_up_every_7th(x), 1e-4);
  }
}

TEST(metrics_accuracy, a_tensor_and_its_scaled_copy) {
  // y = x (1 + 2^-12): the difference is parallel to x, so 1 - cosine is
  // only what rounding the products leaves, far below rel_diff.
  at::manual_seed(22);
  const at::Tensor x = at::randn({300'001});
  const at::Tensor y = x * (1.0 + 1.0 / 4096);
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_metrics want = exact(x, y);
  expect_close(m.rel_diff(), want.rel_diff, 1e-5, "rel_diff");
  expect_cosine_close(m.cosine(), want.cosine_deficit, 1e-4);
}

TEST(metrics_accuracy, tensors_far_apart_in_norm) {
  // |y| about |x| / 1000: every sum but sum y^2 is about sum x^2, and cosine
  // must come from sum xy, the one sum of the scale |x| |y|.
  at::manual_seed(24);
  const at::Tensor x = at::randn({300'001});
  const at::Tensor y = 1e-3 * (x + at::randn({300'001}));
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_metrics want = exact(x, y);
  expect_close(m.rel_diff(), want.rel_diff, 1e-5, "rel_diff");
  EXPECT_NEAR(m.cosine(), static_cast<double>(1 - want.cosine_deficit), 1e-6);
}

TEST(metrics_accuracy, rel_diff_never_goes_below_zero_nor_cosine_above_one) {
  at::manual_seed(23);
  for (const at::ScalarType type : {at::kFloat, at::kDouble}) {
    for (int seed = 0; seed < 20; ++seed) {
      const at::Tensor x = at::randn({40'000 + seed}, at::kDouble).to(type);
      const at::Tensor y = one_step_up_every_7th(x);
      const graft::diff_metrics m = graft::compare(x, y);
      EXPECT_GT(m.rel_diff(), 0.0) << c10::toString(type) << ", seed " << seed;
      EXPECT_LE(m.cosine(), 1.0) << c10::toString(type) << ", seed " << seed;
    }
  }
}

}  // namespace
