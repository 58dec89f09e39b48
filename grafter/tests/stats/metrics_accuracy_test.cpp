// How exact compare() is, against sums taken in long double over exact terms.
// float32 and bfloat16 tensors are summed in float32 blocks (float_diff.hpp):
// every sum within 2e-6 of its value, relative to the sum of its terms'
// magnitudes; other dtypes, and values float32 cannot sum, in float64. Either
// way rel_diff keeps the sums' relative precision, and cosine errs by at most
// that precision times rel_diff, even for tensors that agree to the last bit,
// where a difference of two large, nearly equal sums would leave only their
// rounding.

#include <graft/metrics.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "long_double_oracle.hpp"

namespace {

using graft_test::exact;
using graft_test::exact_sums;
using graft_test::expect_exact_metrics;
using graft_test::expect_within;
using graft_test::one_step_up_every_7th;

TEST(metrics_accuracy, tensors_that_agree_to_the_last_bit) {
  at::manual_seed(21);
  const std::int64_t n = 1'000'003;  // many chunks, the last one partial
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kDouble}) {
    SCOPED_TRACE(c10::toString(type));
    const at::Tensor x = at::randn({n}, at::kDouble).to(type);
    const at::Tensor y = one_step_up_every_7th(x);
    expect_exact_metrics(graft::compare(x, y), exact(x, y), 1e-4);
  }
}

TEST(metrics_accuracy, a_tensor_and_its_scaled_copy) {
  // y = x (1 + 2^-12): the difference is parallel to x, so 1 - cosine is
  // only what rounding y leaves, far below rel_diff.
  at::manual_seed(22);
  const at::Tensor x = at::randn({300'001});
  const at::Tensor y = x * (1.0 + 1.0 / 4096);
  expect_exact_metrics(graft::compare(x, y), exact(x, y), 1e-5);
}

TEST(metrics_accuracy, tensors_far_apart_in_norm) {
  // |y| about |x| / 1000: every sum but sum y^2 is about sum x^2, and cosine
  // comes from sum xy, the one sum of the scale |x| |y|.
  at::manual_seed(24);
  const at::Tensor x = at::randn({300'001});
  const at::Tensor y = 1e-3 * (x + at::randn({300'001}));
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_sums want = exact(x, y);
  expect_within(m.rel_diff(), want.rel_diff(), 1e-5 * want.rel_diff(), "rel_diff");
  expect_within(m.cosine(), 1 - want.cosine_deficit(), 1e-5, "cosine");
}

TEST(metrics_accuracy, every_sum_within_float32_block_precision) {
  at::manual_seed(25);
  const std::int64_t n = 2'000'001;
  const at::Tensor x = at::randn({n});
  const at::Tensor y = x + 0.01 * at::randn({n});
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_sums want = exact(x, y);
  const long double kRelative = 2e-6;
  expect_within(m.sum_xx, want.xx, kRelative * want.xx, "sum_xx");
  expect_within(m.sum_yy, want.yy, kRelative * want.yy, "sum_yy");
  expect_within(m.sum_dd, want.dd, kRelative * want.dd, "sum_dd");
  // sum (x-y)x cancels: its bound is relative to its terms' magnitudes.
  expect_within(2 * m.sum_dx - m.sum_dd, want.xx_minus_yy, 3 * kRelative * (want.abs_dx + want.dd), "sum_xx - sum_yy");
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

// ---- values float32 sums cannot hold go the float64 way ----

// Sums of float64 terms: within 1e-12 of the long double ones.
void expect_float64_exact(const graft::diff_metrics& m, const exact_sums& want) {
  expect_within(m.sum_xx, want.xx, 1e-12L * want.xx, "sum_xx");
  expect_within(m.sum_yy, want.yy, 1e-12L * want.yy, "sum_yy");
  expect_within(m.sum_dd, want.dd, 1e-12L * want.dd, "sum_dd");
}

TEST(metrics_accuracy, squares_below_float32_range) {
  // Values about 1e-25: their float32 squares underflow to nothing; about
  // 3e-20: to denormals, which keep a few bits.
  at::manual_seed(26);
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16}) {
    for (const double scale : {1e-25, 3e-20}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + ", scale " + std::to_string(scale));
      const at::Tensor x = (scale * at::randn({100'000}, at::kDouble)).to(type);
      const at::Tensor y = one_step_up_every_7th(x);
      const graft::diff_metrics m = graft::compare(x, y);
      const exact_sums want = exact(x, y);
      ASSERT_GT(want.xx, 0);
      expect_float64_exact(m, want);
      expect_exact_metrics(m, want, 1e-9);
      // Only x that small, against values of 1: sum x^2 alone is too small.
      const at::Tensor ones = at::randn({100'000}).to(type);
      const exact_sums against_ones = exact(x, ones);
      expect_float64_exact(graft::compare(x, ones), against_ones);
    }
  }
}

TEST(metrics_accuracy, squares_beyond_float32_range) {
  // Values about 1e25: their float32 squares overflow.
  at::manual_seed(27);
  const at::Tensor x = (1e25 * at::randn({100'000}, at::kDouble)).to(at::kFloat);
  const at::Tensor y = one_step_up_every_7th(x);
  const graft::diff_metrics m = graft::compare(x, y);
  const exact_sums want = exact(x, y);
  expect_float64_exact(m, want);
  expect_exact_metrics(m, want, 1e-9);
}

TEST(metrics_accuracy, a_side_of_zeros) {
  at::manual_seed(28);
  const at::Tensor y = at::randn({100'000});
  const graft::diff_metrics m = graft::compare(at::zeros({100'000}), y);
  EXPECT_EQ(m.sum_xx, 0.0);
  EXPECT_EQ(m.sum_xy, 0.0);
  EXPECT_EQ(m.sum_dx, 0.0);
  EXPECT_EQ(m.sum_dd, m.sum_yy) << "x - y is -y, squared as y is";
  EXPECT_EQ(m.rel_diff(), 1.0);
  EXPECT_TRUE(std::isnan(m.cosine()));
}

TEST(metrics_accuracy, a_side_of_zeros_but_one_tiny_value) {
  // One x of 1e-30 among zeros: its square (1e-60) underflows in float32,
  // and sum x^2 must still hold it.
  at::Tensor x = at::zeros({100'000});
  x[54'321] = 1e-30f;
  const graft::diff_metrics m = graft::compare(x, at::randn({100'000}));
  const double tiny = static_cast<double>(1e-30f);
  EXPECT_EQ(m.sum_xx, tiny * tiny);
  EXPECT_FALSE(std::isnan(m.cosine()));
}

// ---- the difference is float32's ----

TEST(metrics_accuracy, max_abs_is_float32s_largest_difference) {
  // Where the exponents of x and y differ, x - y rounds in float32: max_abs
  // and its index are torch's (x - y).abs().max(0) in float32, on the float32
  // way and on the float64 one (values about 1e-25 take it).
  at::manual_seed(29);
  const std::int64_t n = 200'003;
  for (const double scale : {1.0, 1e-25}) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    const at::Tensor x = (scale * at::randn({n}, at::kDouble)).to(at::kFloat);
    const at::Tensor y = (scale * (0.3 + 1e-3 * at::randn({n}, at::kDouble))).to(at::kFloat);
    const auto [max_abs, index] = (x - y).abs().max(0);
    ASSERT_NE(max_abs.item<double>(), (x.to(at::kDouble) - y.to(at::kDouble)).abs().max().item<double>())
        << "the case needs a largest difference that rounds";
    const graft::diff_metrics m = graft::compare(x, y);
    EXPECT_EQ(m.max_abs, max_abs.item<double>());
    EXPECT_EQ(m.max_abs_index, index.item<std::int64_t>());
  }
  // A lone pair (the last, partial step of a range).
  const float a = 1.0f + std::ldexp(1.0f, -22), b = std::ldexp(1.0f, -25);
  ASSERT_NE(static_cast<double>(a - b), static_cast<double>(a) - static_cast<double>(b));
  EXPECT_EQ(graft::compare(at::tensor({a}), at::tensor({b})).max_abs, static_cast<double>(a - b));
}

}  // namespace
