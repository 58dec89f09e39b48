// describe()'s statistics: finite min/max/sum and NaN/Inf counts, as one
// hand-written pass on the CPU and as ATen ops on any other device.

#include <cstdint>

#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>

#include "stats/accumulators.hpp"
#include "stats/chunked.hpp"
#include "stats/passes.hpp"

namespace graft::detail {
namespace {

// One step of kLanes values; known_finite skips the test.
template <typename T>
GRAFT_HOT void stats_step(stats_lanes& lanes, lanes_f64 v, bool known_finite) {
  if (!kMayBeNonFinite<T> || known_finite || all_finite(v, v, v)) {
    lanes.add_finite(v);
  } else {
    lanes.add_any(v);
  }
}

template <simd kLevel, typename T>
GRAFT_HOT stats_partial stats_range_impl(const T* p, std::int64_t begin, std::int64_t end) {
  stats_lanes lanes;
  std::int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    lanes_f64 v[kBlockSteps];
    lanes_f64 probe{};
    for (int s = 0; s < kBlockSteps; s += 2) {
      const step_pair pair = load_step_pair<kLevel>(p + i + s * kLanes);
      v[s] = pair.first;
      v[s + 1] = pair.second;
      probe += v[s] * 0.0 + v[s + 1] * 0.0;
    }
    const bool finite = probe_clean(probe);
    for (int s = 0; s < kBlockSteps; ++s) stats_step<T>(lanes, v[s], finite);
  }
  for (; i + kLanes <= end; i += kLanes) stats_step<T>(lanes, load_lanes<kLevel>(p + i), false);
  stats_lanes last = lanes;  // lane by lane on a copy: `lanes` stays in registers
  for (int l = 0; i < end; ++i, ++l) last.add_one(l, static_cast<double>(p[i]));
  return last.fold();
}

template <typename T>
using stats_range_fn = stats_partial (*)(const T*, std::int64_t, std::int64_t);

template <typename T>
stats_partial stats_range(const T* p, std::int64_t begin, std::int64_t end) {
  return stats_range_impl<simd::baseline>(p, begin, end);
}

template <typename T>
GRAFT_TARGET_AVX2 stats_partial stats_range_avx2(const T* p, std::int64_t begin, std::int64_t end) {
  return stats_range_impl<simd::avx2>(p, begin, end);
}

template <typename T>
GRAFT_TARGET_AVX512 stats_partial stats_range_avx512(const T* p, std::int64_t begin, std::int64_t end) {
  return stats_range_impl<simd::avx512>(p, begin, end);
}

template <typename T>
stats_range_fn<T> best_stats_range() {
  return pick_simd<stats_range_fn<T>>(&stats_range<T>, &stats_range_avx2<T>, &stats_range_avx512<T>);
}

}  // namespace

value_stats cpu_value_stats(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  stats_partial total;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, c.scalar_type(),
                             "graft_cpu_value_stats", [&] {
    const scalar_t* p = c.data_ptr<scalar_t>();
    const stats_range_fn<scalar_t> range = best_stats_range<scalar_t>();
    total = chunked_reduce<stats_partial>(
        c.numel(), [&](std::int64_t b, std::int64_t e) { return range(p, b, e); },
        [](stats_partial& into, const stats_partial& next) { combine(into, next); });
  });
  return to_value_stats(total);
}

value_stats aten_value_stats(const at::Tensor& t) {
  const at::Tensor v = t.to(at::kDouble).flatten();
  const at::Tensor finite = at::isfinite(v);
  const at::Tensor not_finite = finite.logical_not();
  const at::Tensor host = at::stack({at::isnan(v).sum().to(at::kDouble),
                                     at::isinf(v).sum().to(at::kDouble),
                                     finite.sum().to(at::kDouble),
                                     v.masked_fill(not_finite, kInfinity).min(),
                                     v.masked_fill(not_finite, -kInfinity).max(),
                                     v.masked_fill(not_finite, 0.0).sum()})
                              .cpu();
  const double* h = host.data_ptr<double>();
  // Counts travel as doubles: exact up to 2^53 elements.
  return {static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1]),
          static_cast<std::int64_t>(h[2]), h[3], h[4], h[5]};
}

}  // namespace graft::detail
