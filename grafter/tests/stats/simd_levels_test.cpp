// Every instruction-set variant of the CPU passes gives bit for bit the
// baseline variant's results: the level a machine picks never shows in a
// metric, a statistic or a written value. On a CPU without AVX-512 (or AVX2)
// the higher levels fall back to the best it has, and the comparison says so.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <graft/metrics.hpp>
#include <graft_test/tensor_checks.hpp>
#include <limits>
#include <string>
#include <vector>

#include "stats/chunked.hpp"
#include "stats/passes.hpp"
#include "stats/simd.hpp"
#include "stats/write_measure.hpp"

namespace {

using graft::detail::simd;

const char *level_name(simd level) {
  switch (level) {
    case simd::avx512:
      return "avx512";
    case simd::avx2:
      return "avx2";
    case simd::baseline:
      break;
  }
  return "baseline";
}

// Restores the uncapped level when a test ends, pass or fail.
struct simd_cap {
  explicit simd_cap(simd level) : previous(graft::detail::limit_simd(level)) {}
  ~simd_cap() { graft::detail::limit_simd(previous); }
  simd previous;
};

// Everything the passes produce for one input, doubles as their bit
// patterns: equal means bit for bit equal. NaNs compare as one value: the
// sign and payload of a NaN sum depend on operand order inside an
// instruction, and no report shows them (JSON writes "NaN").
struct pass_results {
  // measure_only: cpu_measure_graft's, at scale 1 only (empty otherwise).
  std::vector<std::uint64_t> diff, stats_x, stats_y, measured, measure_only;
  std::uint64_t written_checksum = 0, unmeasured_checksum = 0;
};

std::uint64_t bits(double v) {
  if (std::isnan(v)) return 0x7FF8000000000000u;
  std::uint64_t out = 0;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

std::vector<std::uint64_t> stats_bits(const graft::detail::value_stats &s) {
  return {static_cast<std::uint64_t>(s.nan_count),
          static_cast<std::uint64_t>(s.inf_count),
          static_cast<std::uint64_t>(s.finite_count),
          bits(s.min),
          bits(s.max),
          bits(s.sum)};
}

std::vector<std::uint64_t> diff_bits(const graft::diff_metrics &m) {
  return {bits(m.sum_xx),
          bits(m.sum_yy),
          bits(m.sum_xy),
          bits(m.sum_dd),
          bits(m.sum_dx),
          bits(m.sum_abs),
          bits(m.max_abs),
          static_cast<std::uint64_t>(m.max_abs_index),
          static_cast<std::uint64_t>(m.x_nan),
          static_cast<std::uint64_t>(m.x_inf),
          static_cast<std::uint64_t>(m.y_nan),
          static_cast<std::uint64_t>(m.y_inf)};
}

std::vector<std::uint64_t> joined(std::vector<std::vector<std::uint64_t>> parts) {
  std::vector<std::uint64_t> out;
  for (const auto &p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

pass_results run_passes(const at::Tensor &x, const at::Tensor &y, double scale) {
  pass_results r;
  r.diff = diff_bits(graft::detail::cpu_diff_pass(x, y.to(x.scalar_type())));
  r.stats_x = stats_bits(graft::detail::cpu_value_stats(x));
  r.stats_y = stats_bits(graft::detail::cpu_value_stats(y));
  const at::Tensor written = y.clone();
  const graft::detail::measured_write w = graft::detail::cpu_write_measured(x, scale, written);
  r.measured = joined({diff_bits(w.metrics), stats_bits(w.before), stats_bits(w.candidate)});
  r.written_checksum = graft_test::byte_checksum(written);
  if (scale == 1.0) {
    const graft::detail::measured_write m = graft::detail::cpu_measure_graft(x, y);
    r.measure_only = joined({diff_bits(m.metrics), stats_bits(m.before), stats_bits(m.candidate)});
  }
  const at::Tensor unmeasured = y.clone();
  graft::detail::cpu_write(x, scale, unmeasured);
  r.unmeasured_checksum = graft_test::byte_checksum(unmeasured);
  return r;
}

enum class sample_kind { finite, with_non_finite, ties };

const char *kind_name(sample_kind kind) {
  switch (kind) {
    case sample_kind::with_non_finite:
      return " with NaN/Inf";
    case sample_kind::ties:
      return " with ties";
    case sample_kind::finite:
      break;
  }
  return "";
}

// Float64 values that every narrower dtype rounds. with_non_finite adds a NaN
// and an Inf (a careful step each, and NaN sums) to an otherwise finite run;
// ties are the integers 0..6, so that many differences tie for the maximum
// and its index is the first of them in every variant.
at::Tensor sample(at::ScalarType type, std::int64_t n, int seed, sample_kind kind) {
  at::manual_seed(seed);
  if (kind == sample_kind::ties) return at::randint(0, 7, {n}, at::kDouble).to(type);
  at::Tensor t = at::randn({n}, at::kDouble) * 7;
  if (kind == sample_kind::with_non_finite) {
    t[n / 3] = std::numeric_limits<double>::quiet_NaN();
    t[n / 2] = -std::numeric_limits<double>::infinity();
  }
  return t.to(type);
}

// Runs the passes over x and y at the baseline level and at every other
// level, and expects the same bits from each (what: the case, for messages).
void expect_every_level_matches(const at::Tensor &x, const at::Tensor &y, double scale, const std::string &what) {
  pass_results baseline;
  {
    simd_cap cap(simd::baseline);
    baseline = run_passes(x, y, scale);
  }
  for (const simd level : {simd::avx2, simd::avx512}) {
    simd_cap cap(level);
    SCOPED_TRACE(std::string(c10::toString(x.scalar_type())) + " -> " + c10::toString(y.scalar_type()) + " scale " +
                 std::to_string(scale) + what + " at " + level_name(level) + " (running " +
                 level_name(graft::detail::active_simd()) + ")");
    const pass_results r = run_passes(x, y, scale);
    EXPECT_EQ(r.diff, baseline.diff);
    EXPECT_EQ(r.stats_x, baseline.stats_x);
    EXPECT_EQ(r.stats_y, baseline.stats_y);
    EXPECT_EQ(r.measured, baseline.measured);
    if (scale == 1.0) {
      EXPECT_EQ(r.measure_only, r.measured);
    }
    EXPECT_EQ(r.written_checksum, baseline.written_checksum);
    EXPECT_EQ(r.unmeasured_checksum, baseline.written_checksum);
  }
  EXPECT_EQ(baseline.unmeasured_checksum, baseline.written_checksum);
  if (scale == 1.0) {
    EXPECT_EQ(baseline.measure_only, baseline.measured);
  }
}

TEST(simd_levels, every_level_matches_the_baseline) {
  const std::int64_t n = 2 * graft::detail::kChunk + 13;  // chunks, a partial step
  const std::vector<at::ScalarType> types{at::kFloat, at::kBFloat16, at::kHalf, at::kDouble};
  int seed = 0;
  for (const at::ScalarType from : types) {
    for (const at::ScalarType to : types) {
      for (const double scale : {1.0, 2.0, 0.1}) {
        for (const sample_kind kind : {sample_kind::finite, sample_kind::with_non_finite, sample_kind::ties}) {
          seed += 2;
          expect_every_level_matches(sample(from, n, seed, kind), sample(to, n, seed + 1, kind), scale,
                                     kind_name(kind));
        }
      }
    }
  }
}

// Every float16 bit pattern once (NaNs of every payload, both infinities,
// the subnormals, both zeros, the largest finite values), then the first 13
// again: two whole chunks and a partial step.
at::Tensor every_float16() {
  const at::Tensor bits = at::arange(0, 1 << 16, at::kInt).to(at::kShort);  // 0x8000.. wrap to negative
  return at::cat({bits, bits.slice(0, 0, 13)}).view(at::kHalf);
}

// n float32 bit patterns drawn from all 2^32: NaNs with payloads, float32
// denormals, values far beyond float16's range and within it.
at::Tensor any_float32_bits(std::int64_t n, int seed) {
  at::manual_seed(seed);
  return at::randint(-(std::int64_t{1} << 31), std::int64_t{1} << 31, {n}, at::kLong).to(at::kInt).view(at::kFloat);
}

// float16's edges through F16C (AVX2 and AVX-512 levels) and c10's scalar
// conversions (the baseline's): every pattern against a shuffle of them
// (NaNs in every chunk: the careful loops), the finite ones alone (the
// unchecked loops), and float32 bit patterns written into float16 and back.
TEST(simd_levels, float16_edges_match_the_baseline) {
  const at::Tensor every = every_float16();
  at::manual_seed(11);
  const at::Tensor shuffled = every.index_select(0, at::randperm(every.numel()));
  const at::Tensor finite = every.masked_select(at::isfinite(every));
  const at::Tensor finite_shuffled = finite.index_select(0, at::randperm(finite.numel()));
  const at::Tensor floats = any_float32_bits(every.numel(), 12);
  for (const double scale : {1.0, 2.0, 0.1}) {
    expect_every_level_matches(every, shuffled, scale, " every float16");
    expect_every_level_matches(finite, finite_shuffled, scale, " finite float16");
    expect_every_level_matches(floats, shuffled, scale, " float32 bits");
    expect_every_level_matches(shuffled, floats, scale, " float32 bits");
    for (const at::ScalarType other : {at::kBFloat16, at::kDouble}) {
      expect_every_level_matches(finite_shuffled, finite.to(other), scale, " finite float16");
      expect_every_level_matches(finite.to(other), finite_shuffled, scale, " finite float16");
    }
  }
}

TEST(simd_levels, the_cap_limits_the_active_level) {
  simd_cap cap(simd::baseline);
  EXPECT_EQ(graft::detail::active_simd(), simd::baseline);
  graft::detail::limit_simd(simd::avx512);
  EXPECT_NE(graft::detail::active_simd(), simd::baseline)
      << "this x86-64 CPU has neither AVX2 nor AVX-512; only the baseline "
         "variant ran";
}

}  // namespace
