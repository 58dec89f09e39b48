// Every measuring pass against the exact oracle (long_double_oracle.hpp), for
// float32, bfloat16, float16 and float64, on values that stress them: ties,
// near-cancellation, NaN and infinities, and magnitudes near each dtype's
// ends. The passes: describe() (a tensor's own statistics), the measured
// write (its metrics, both sides' statistics and the bytes it writes) and
// the measure-only receive (the same measurements, the target untouched).
// None is checked against another pass here: a bug they share fails.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>

#include <graft_test/tensor_checks.hpp>

#include "long_double_oracle.hpp"
#include "stats/chunked.hpp"
#include "stats/passes.hpp"
#include "stats/write_measure.hpp"

namespace {

using graft_test::exact;
using graft_test::exact_stats;
using graft_test::exact_value_stats;
using graft_test::expect_exact_metrics;
using graft_test::expect_within;
using graft_test::one_step_up_every_7th;

const std::vector<at::ScalarType>& dtypes() {
  static const std::vector<at::ScalarType> all = {at::kFloat, at::kBFloat16, at::kHalf, at::kDouble};
  return all;
}

// Near the top of the dtype's range and near the bottom of its normal range,
// far enough that randn's tails and one step up stay finite and normal. For
// float64 the bottom is where the squares of one-step differences still are
// normal doubles: float64 is summed in float64, so below about 1e-138 those
// squares underflow and rel_diff reads 0 for tensors that differ
// (docs/metrics.md says so).
double huge(at::ScalarType type) {
  switch (type) {
    case at::kHalf: return 6e3;
    case at::kDouble: return 1e150;
    default: return 1e36;
  }
}
double tiny(at::ScalarType type) {
  switch (type) {
    case at::kHalf: return 1e-3;
    case at::kDouble: return 1e-130;
    default: return 1e-36;
  }
}

// The relative precision of a pass's sums: float32 blocks for float32 and
// bfloat16 (within 2e-6 of the magnitudes summed), float64 otherwise.
long double sum_precision(at::ScalarType type) { return type == at::kDouble || type == at::kHalf ? 1e-12L : 2e-6L; }

struct named_case {
  std::string name;
  at::Tensor values;
};

// Values that stress a pass, each of n elements (n spans several chunks).
std::vector<named_case> stress_values(at::ScalarType type, std::int64_t n, int seed) {
  at::manual_seed(seed);
  const at::Tensor normal = at::randn({n}, at::kDouble);
  // Ties: the whole tensor takes eight values, each many times over.
  const at::Tensor ties = at::floor(normal * 2) / 2;
  // Near-cancellation: pairs a, -a, and a small remainder, so the sum is
  // tiny against the magnitudes summed.
  at::Tensor cancelling = at::cat({normal.slice(0, 0, n / 2), -normal.slice(0, 0, n / 2)});
  cancelling = at::cat({cancelling, at::full({n - cancelling.numel()}, 0.25, at::kDouble)});
  return {{"normal", normal.to(type)},
          {"ties", ties.to(type)},
          {"cancelling", cancelling.to(type)},
          {"huge", (huge(type) * normal).to(type)},
          {"tiny", (tiny(type) * normal).to(type)}};
}

// t with NaN, +Inf and -Inf planted across its chunks.
at::Tensor with_nonfinite(at::Tensor t) {
  t = t.clone();
  const std::int64_t n = t.numel();
  t[0] = std::numeric_limits<double>::quiet_NaN();
  t[n / 3] = std::numeric_limits<double>::infinity();
  t[n / 2] = -std::numeric_limits<double>::infinity();
  t[n - 1] = std::numeric_limits<double>::quiet_NaN();
  return t;
}

void expect_exact_stats(const graft::detail::value_stats& got, const exact_value_stats& want, at::ScalarType type,
                        const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.nan_count, want.nan_count);
  EXPECT_EQ(got.inf_count, want.inf_count);
  EXPECT_EQ(got.finite_count, want.finite_count);
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  expect_within(got.sum, want.sum, sum_precision(type) * want.sum_abs, "sum");
}

const std::int64_t kLength = 3 * graft::detail::kChunk + 11;

TEST(measuring_oracle, describe_gives_each_tensors_exact_statistics) {
  for (const at::ScalarType type : dtypes()) {
    for (const auto& c : stress_values(type, kLength, 51)) {
      for (const at::Tensor& t : {c.values, with_nonfinite(c.values)}) {
        SCOPED_TRACE(std::string(c10::toString(type)) + " " + c.name);
        const graft::tensor_info info = graft::describe(t);
        const exact_value_stats want = exact_stats(t);
        EXPECT_EQ(info.nan_count, want.nan_count);
        EXPECT_EQ(info.inf_count, want.inf_count);
        ASSERT_TRUE(info.min && info.max && info.mean);
        EXPECT_EQ(*info.min, want.min);
        EXPECT_EQ(*info.max, want.max);
        const long double count = static_cast<long double>(want.finite_count);
        expect_within(*info.mean, want.sum / count, sum_precision(type) * want.sum_abs / count, "mean");
      }
    }
  }
}

// The measured write of `source` (scale 1 or 2) into a copy of `target`:
// the bytes it wrote are the exact product rounded once to the target's
// dtype, and its measurements are the oracle's.
void expect_exact_measured_write(const at::Tensor& source, double scale, const at::Tensor& target) {
  const at::Tensor written = target.clone();
  const graft::detail::measured_write r = graft::detail::cpu_write_measured(source, scale, written);
  // scale is a power of two: the product is exact in double, so rounding it
  // to the target's dtype is the one rounding there is.
  const at::Tensor candidate = (source.to(at::kDouble) * scale).to(source.scalar_type());
  const at::Tensor expected = (source.to(at::kDouble) * scale).to(target.scalar_type());
  EXPECT_EQ(graft_test::byte_checksum(written), graft_test::byte_checksum(expected)) << "the written bytes";
  expect_exact_stats(r.before, exact_stats(target), target.scalar_type(), "the target before");
  expect_exact_stats(r.candidate, exact_stats(candidate), source.scalar_type(), "the candidate");
  expect_exact_metrics(r.metrics, exact(target, expected), 1e-4);

  // Measuring only: the same measurements of candidate against the target,
  // and the target's bytes untouched.
  if (scale == 1.0 && source.scalar_type() == target.scalar_type()) {
    const std::uint64_t before = graft_test::byte_checksum(target);
    const graft::detail::measured_write m = graft::detail::cpu_measure_graft(source, target);
    EXPECT_EQ(graft_test::byte_checksum(target), before) << "measure-only wrote the target";
    expect_exact_stats(m.before, exact_stats(target), target.scalar_type(), "measure-only: the target");
    expect_exact_stats(m.candidate, exact_stats(source), source.scalar_type(), "measure-only: the candidate");
    expect_exact_metrics(m.metrics, exact(target, source), 1e-4);
  }
}

TEST(measuring_oracle, measured_write_and_measure_only_are_exact) {
  for (const at::ScalarType type : dtypes()) {
    for (const auto& c : stress_values(type, kLength, 52)) {
      // A target that agrees with the source to the last bit but in every
      // 7th value: the hardest case for rel_diff and cosine.
      const at::Tensor target = one_step_up_every_7th(c.values);
      for (const double scale : {1.0, 2.0}) {
        if (scale == 2.0 && c.name == "huge") continue;  // twice a huge value may leave the range
        SCOPED_TRACE(std::string(c10::toString(type)) + " " + c.name + ", scale " + std::to_string(scale));
        expect_exact_measured_write(c.values, scale, scale == 1.0 ? target : one_step_up_every_7th(c.values * 2));
      }
    }
  }
}

TEST(measuring_oracle, nonfinite_values_are_counted_on_both_sides) {
  for (const at::ScalarType type : dtypes()) {
    SCOPED_TRACE(c10::toString(type));
    const at::Tensor source = with_nonfinite(stress_values(type, kLength, 53).front().values);
    const at::Tensor target = with_nonfinite(one_step_up_every_7th(source));
    const at::Tensor written = target.clone();
    const graft::detail::measured_write r = graft::detail::cpu_write_measured(source, 1.0, written);
    EXPECT_EQ(graft_test::byte_checksum(written), graft_test::byte_checksum(source));
    expect_exact_stats(r.before, exact_stats(target), type, "the target before");
    expect_exact_stats(r.candidate, exact_stats(source), type, "the candidate");
  }
}

}  // namespace
