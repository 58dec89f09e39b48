// The fused write+measure pass against its unfused definition: the target
// gets exactly `(source * scale).to(target dtype)`, and the metrics and both
// sides' statistics are bit for bit those of compare() and the value pass.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/metrics.hpp>

#include <graft_test/tensor_checks.hpp>

#include "stats/chunked.hpp"
#include "stats/passes.hpp"
#include "stats/write_measure.hpp"

namespace {

using graft::detail::cpu_write_measured;
using graft::detail::kChunk;

// Equal, or both NaN.
#define EXPECT_SAME_DOUBLE(a, b) EXPECT_TRUE((a) == (b) || ((a) != (a) && (b) != (b))) << (a) << " vs " << (b)

void expect_identical(const graft::diff_metrics& a, const graft::diff_metrics& b) {
  EXPECT_EQ(nlohmann::json(a), nlohmann::json(b));
  EXPECT_SAME_DOUBLE(a.sum_xx, b.sum_xx);
  EXPECT_SAME_DOUBLE(a.sum_yy, b.sum_yy);
  EXPECT_SAME_DOUBLE(a.sum_xy, b.sum_xy);
  EXPECT_SAME_DOUBLE(a.sum_dd, b.sum_dd);
  EXPECT_SAME_DOUBLE(a.sum_dx, b.sum_dx);
  EXPECT_SAME_DOUBLE(a.sum_abs, b.sum_abs);
  EXPECT_EQ(a.max_abs_index, b.max_abs_index);
}

void expect_identical(const graft::detail::value_stats& a, const graft::detail::value_stats& b) {
  EXPECT_EQ(a.nan_count, b.nan_count);
  EXPECT_EQ(a.inf_count, b.inf_count);
  EXPECT_EQ(a.finite_count, b.finite_count);
  EXPECT_SAME_DOUBLE(a.min, b.min);
  EXPECT_SAME_DOUBLE(a.max, b.max);
  EXPECT_SAME_DOUBLE(a.sum, b.sum);
}

// scale * source as write_measure.hpp defines it (the factor rounded to the
// source dtype, the product in its math type), in ATen ops whose meaning no
// release changed. libtorch's own `source * scale` keeps a float16/bfloat16
// source's factor in float from 2.0 on, so the two agree for every release
// only when scale_is_exact, which the recv path requires: checked here too.
at::Tensor scaled(const at::Tensor& source, double scale) {
  if (scale == 1.0) return source;
  const at::ScalarType type = source.scalar_type();
  const at::ScalarType math = type == at::kHalf || type == at::kBFloat16 ? at::kFloat : type;
  const double factor = at::scalar_tensor(scale, at::kDouble).to(type).item<double>();
  const at::Tensor out = (source.to(math) * at::scalar_tensor(factor, at::TensorOptions().dtype(math))).to(type);
  if (graft::detail::scale_is_exact(type, scale)) {
    EXPECT_EQ(graft_test::byte_checksum(out), graft_test::byte_checksum(source * scale));
  }
  return out;
}

// Runs the pass on copies and checks it against ATen + the unfused passes.
void expect_matches_unfused(const at::Tensor& source, double scale, const at::Tensor& target) {
  SCOPED_TRACE(std::string(c10::toString(source.scalar_type())) + " -> " +
               c10::toString(target.scalar_type()) + " scale " + std::to_string(scale));
  const at::Tensor candidate = scaled(source, scale);
  const at::Tensor expected = candidate.to(target.scalar_type());
  const at::Tensor written = target.clone();
  const graft::detail::measured_write r = cpu_write_measured(source, scale, written);
  EXPECT_EQ(graft_test::byte_checksum(written), graft_test::byte_checksum(expected));
  expect_identical(r.metrics, graft::compare(target, expected));
  expect_identical(r.before, graft::detail::cpu_value_stats(target));
  expect_identical(r.candidate, graft::detail::cpu_value_stats(candidate));
}

at::Tensor sample(at::ScalarType type, std::int64_t n, int seed) {
  at::manual_seed(seed);
  return (at::randn({n}) * 5).to(type);
}

TEST(write_measured, every_dtype_pair_and_scale_over_many_chunks) {
  const std::int64_t n = 3 * kChunk + 5;  // a partial last chunk and a partial lane step
  const std::vector<at::ScalarType> types{at::kFloat, at::kBFloat16, at::kHalf, at::kDouble};
  int seed = 0;
  for (const at::ScalarType from : types) {
    for (const at::ScalarType to : types) {
      for (const double scale : {1.0, 2.0, 0.1}) {
        seed += 2;
        expect_matches_unfused(sample(from, n, seed), scale, sample(to, n, seed + 1));
      }
    }
  }
}

TEST(write_measured, tiny_and_zero_dim_tensors) {
  expect_matches_unfused(at::tensor({1.5f, -2.0f, 3.0f}), 2.0, at::zeros({3}));
  expect_matches_unfused(at::tensor(4.0), 1.0, at::tensor(1.0f));
}

TEST(write_measured, non_finite_values_and_first_maximum) {
  at::Tensor source = sample(at::kFloat, 2 * kChunk, 40);
  at::Tensor target = at::zeros({2 * kChunk});
  source[3] = 1e6;
  source[kChunk + 3] = -1e6;  // a tie in a later chunk: the first index wins
  expect_matches_unfused(source, 1.0, target);
  source[kChunk + 9] = std::numeric_limits<float>::quiet_NaN();
  target[11] = std::numeric_limits<float>::infinity();
  expect_matches_unfused(source, 2.0, target);
  const graft::detail::measured_write r = cpu_write_measured(source, 2.0, target.clone());
  EXPECT_EQ(r.metrics.max_abs_index, kChunk + 9);
  EXPECT_EQ(r.candidate.nan_count, 1);
  EXPECT_EQ(r.before.inf_count, 1);
}

// float16's edges among ordinary values: subnormals, both zeros and the
// largest finite values (the unchecked loops take them), then NaN and
// infinities too (the careful ones), both as float16 sources and as what
// float32 values round to (65520 rounds to Inf, 2^-25 to zero, 3 * 2^-25 to
// 2^-23: ties to even).
TEST(write_measured, float16_edges_into_every_dtype) {
  const std::int64_t n = 2 * kChunk + 5;
  const float max_half = 65504.0f;
  const std::vector<float> finite_edges{
      0.0f, -0.0f, max_half, -max_half, 65519.996f, 0x1p-24f, -0x1p-24f, 0x1.ff8p-15f /* largest subnormal */,
      0x1p-14f, 0x1p-25f, 0x3p-25f, 0x1.8p-24f, 1e-40f /* a float32 denormal */, 1.0f + 0x1p-11f};
  const std::vector<float> non_finite_edges{std::numeric_limits<float>::quiet_NaN(),
                                            -std::numeric_limits<float>::quiet_NaN(),
                                            std::numeric_limits<float>::infinity(),
                                            -std::numeric_limits<float>::infinity(), 65520.0f, -1e30f};
  at::Tensor finite = sample(at::kFloat, n, 50);
  at::Tensor any = sample(at::kFloat, n, 51);
  for (std::size_t k = 0; k < finite_edges.size(); ++k) {
    // Spread over both chunks and the tail.
    for (const std::int64_t at : {std::int64_t(7 * k), kChunk + std::int64_t(11 * k), n - 1 - std::int64_t(k) % 5}) {
      finite[at] = finite_edges[k];
      any[at] = finite_edges[k];
    }
  }
  for (std::size_t k = 0; k < non_finite_edges.size(); ++k) any[kChunk + 3 + std::int64_t(k)] = non_finite_edges[k];
  const at::Tensor finite_half = finite.to(at::kHalf);
  ASSERT_TRUE(at::isfinite(finite_half).all().item<bool>());
  for (const at::Tensor& source : {finite, any}) {
    for (const at::ScalarType from : {at::kHalf, at::kFloat}) {
      for (const at::ScalarType to : {at::kFloat, at::kBFloat16, at::kHalf, at::kDouble}) {
        if (from != at::kHalf && to != at::kHalf) continue;
        for (const double scale : {1.0, 2.0, 0.1}) {
          expect_matches_unfused(source.to(from), scale, sample(to, n, 52));
          expect_matches_unfused(sample(from, n, 53), scale, source.to(at::kHalf).to(to));
        }
      }
    }
  }
}

TEST(write_measured, source_that_is_the_target_is_read_before_written) {
  const at::Tensor original = sample(at::kFloat, kChunk + 17, 41);
  at::Tensor t = original.clone();
  const graft::detail::measured_write r = cpu_write_measured(t, 2.0, t);
  EXPECT_TRUE(at::equal(t, original * 2));
  expect_identical(r.metrics, graft::compare(original, original * 2));
}

TEST(write_measured, bitwise_deterministic_across_thread_counts) {
  const at::Tensor source = sample(at::kBFloat16, 10 * kChunk + 3, 42);
  const at::Tensor target = sample(at::kFloat, 10 * kChunk + 3, 43);
  const int threads = at::get_num_threads();
  const auto first = cpu_write_measured(source, 2.0, target.clone());
  at::set_num_threads(1);
  const auto serial = cpu_write_measured(source, 2.0, target.clone());
  at::set_num_threads(std::max(threads, 3));
  const auto wide = cpu_write_measured(source, 2.0, target.clone());
  at::set_num_threads(threads);
  expect_identical(first.metrics, serial.metrics);
  expect_identical(first.metrics, wide.metrics);
  expect_identical(first.candidate, wide.candidate);
}

TEST(write_measured, refuses_before_writing_anything) {
  const at::Tensor source = at::ones({4, 4});
  const auto refuses = [&](const at::Tensor& src, const at::Tensor& target) {
    const at::Tensor before = target.clone();
    EXPECT_THROW(cpu_write_measured(src, 2.0, target), graft::error);
    EXPECT_TRUE(at::equal(target, before));
  };
  refuses(source, at::zeros({4, 4}).t().contiguous().t());  // not contiguous
  refuses(source, at::zeros({4, 4}, at::kInt));            // no loop for the dtype
  refuses(source, at::zeros({15}));                          // numel differs
  refuses(at::ones({0}), at::zeros({0}));                    // nothing to measure
}

}  // namespace

// ---- the measure-only pass (compare-only names) ----

// cpu_measure_graft's results are cpu_write_measured's, bit for bit, and the
// target's bytes are what they were.
void expect_measures_as_the_write(const at::Tensor& candidate, const at::Tensor& target) {
  SCOPED_TRACE(std::string(c10::toString(candidate.scalar_type())) + " -> " + c10::toString(target.scalar_type()));
  const auto before = graft_test::byte_checksum(target);
  const graft::detail::measured_write measured = graft::detail::cpu_measure_graft(candidate, target);
  EXPECT_EQ(graft_test::byte_checksum(target), before) << "the measure-only pass wrote the target";
  const graft::detail::measured_write written = cpu_write_measured(candidate, 1.0, target.clone());
  expect_identical(measured.metrics, written.metrics);
  expect_identical(measured.before, written.before);
  expect_identical(measured.candidate, written.candidate);
}

TEST(measure_graft, matches_the_measured_write_and_writes_nothing) {
  const std::int64_t n = 3 * kChunk + 5;
  const std::vector<at::ScalarType> types{at::kFloat, at::kBFloat16, at::kHalf, at::kDouble};
  int seed = 100;
  for (const at::ScalarType from : types) {
    for (const at::ScalarType to : types) {
      seed += 2;
      expect_measures_as_the_write(sample(from, n, seed), sample(to, n, seed + 1));
    }
  }
  expect_measures_as_the_write(at::tensor({1.5f, -2.0f, 3.0f}), at::zeros({3}));
}

TEST(measure_graft, non_finite_values_take_the_careful_way_alike) {
  at::Tensor candidate = sample(at::kFloat, 2 * kChunk + 40, 120);
  at::Tensor target = sample(at::kFloat, 2 * kChunk + 40, 121);
  candidate[kChunk + 9] = std::numeric_limits<float>::quiet_NaN();
  target[11] = std::numeric_limits<float>::infinity();
  target[2 * kChunk + 33] = -std::numeric_limits<float>::infinity();  // in the tail
  expect_measures_as_the_write(candidate, target);
  const graft::detail::measured_write r = graft::detail::cpu_measure_graft(candidate, target);
  EXPECT_EQ(r.candidate.nan_count, 1);
  EXPECT_EQ(r.before.inf_count, 2);
}

TEST(measure_graft, refuses_what_the_write_refuses) {
  EXPECT_THROW(graft::detail::cpu_measure_graft(at::ones({4}), at::zeros({4}, at::kInt)), graft::error);
  EXPECT_THROW(graft::detail::cpu_measure_graft(at::ones({4, 4}), at::zeros({4, 4}).t()), graft::error);
  EXPECT_THROW(graft::detail::cpu_measure_graft(at::ones({0}), at::zeros({0})), graft::error);
}
