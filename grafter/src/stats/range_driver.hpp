#pragma once
// The one loop of the CPU passes (compare(), describe() and the fused write):
// how a range is walked, at which SIMD level, and when a step may skip the
// NaN/Inf tests. Each pass only says what one step does (diff_steps,
// stats_steps, write_steps).
//
// A range first takes its pass's fast path over whole blocks when the pass
// has one (sums that assume every value finite, or that fit float32) and
// that path's sums confirm the assumption. Otherwise it goes the careful way
// from its start: blocks of kBlockSteps steps, each block tested for
// finiteness once and then added fast, or step by step with each step tested
// (add_step). Either way the rest of the range, fewer values than a block
// of the path taken, goes a step and then an element at a time.
//
// A pass (Steps) provides:
//   partial, lanes, values          its result, accumulators and step_values
//   kMayBeNonFinite, kHasFastBlocks, kAvx512
//                                   whether a value can be NaN/Inf; whether it
//                                   has fast_blocks; whether its AVX-512
//                                   variant may run
//   step<kLevel>(i), pair<kLevel>(i, first, second)
//                                   the values of the step at i, or of the two from i
//   add_finite(lanes, v, i), add_any(lanes, v, i), add_one(lanes, l, i)
//                                   a step of finite or any values; element i in lane l
//   fold(lanes)                     the partial of the accumulators
//   fast_blocks<kLevel>(lanes, begin, end, i)
//                                   the fast path over whole blocks from begin,
//                                   leaving i after them; false when its sums
//                                   say the careful way must run instead

#include <cstdint>

#include "stats/accumulators.hpp"
#include "stats/chunked.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

// One step's values, N vectors of kLanes float64 lanes (the operands of a
// diff, one tensor's values, or a write's old, written and candidate values).
template <int N>
struct step_values {
  lanes_f64 v[N];
};

// NaN in each lane where any of the step's values is NaN or Inf (probe_clean).
template <int N>
GRAFT_HOT lanes_f64 probe_of(const step_values<N>& step) {
  lanes_f64 probe = step.v[0] * 0.0;
  for (int k = 1; k < N; ++k) probe += step.v[k] * 0.0;
  return probe;
}

// Adds the step at i: without NaN/Inf tests when its values are known finite
// or found so, else with them.
template <typename Steps>
GRAFT_HOT void add_step(const Steps& steps, typename Steps::lanes& lanes, const typename Steps::values& step,
                        std::int64_t i, bool known_finite) {
  if (!Steps::kMayBeNonFinite || known_finite || probe_clean(probe_of(step))) {
    steps.add_finite(lanes, step, i);
  } else {
    steps.add_any(lanes, step, i);
  }
}

// The steps and elements in [i, end), fewer than a block of the loop that
// leaves them, added to lanes; the folded total.
template <simd kLevel, typename Steps>
GRAFT_HOT typename Steps::partial finish_range(const Steps& steps, typename Steps::lanes lanes, std::int64_t i,
                                               std::int64_t end) {
  for (; i + kLanes <= end; i += kLanes) add_step(steps, lanes, steps.template step<kLevel>(i), i, false);
  typename Steps::lanes last = lanes;  // lane by lane on a copy: `lanes` stays in registers
  for (int l = 0; i < end; ++i, ++l) steps.add_one(last, l, i);
  return steps.fold(last);
}

// Any values: each block is read once, tested for finiteness once, and then
// added (add_step). A pass that writes writes a step when it reads it: step s
// reads its values before writing them and writes nothing a later step reads.
template <simd kLevel, typename Steps>
GRAFT_HOT typename Steps::partial careful_range(const Steps& steps, std::int64_t begin, std::int64_t end) {
  typename Steps::lanes lanes;
  std::int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    typename Steps::values block[kBlockSteps];
    lanes_f64 probe{};
    for (int s = 0; s < kBlockSteps; s += 2) {
      steps.template pair<kLevel>(i + s * kLanes, block[s], block[s + 1]);
      probe += probe_of(block[s]) + probe_of(block[s + 1]);
    }
    const bool finite = probe_clean(probe);
    for (int s = 0; s < kBlockSteps; ++s) add_step(steps, lanes, block[s], i + s * kLanes, finite);
  }
  return finish_range<kLevel>(steps, lanes, i, end);
}

// [begin, end) the fast way where the pass has one and its sums stand, else
// the careful way. Either way the results are the careful way's, bit for bit
// (float32 sums aside, which a range's values alone decide: float_diff.hpp).
template <simd kLevel, typename Steps>
GRAFT_HOT typename Steps::partial walk_range(const Steps& steps, std::int64_t begin, std::int64_t end) {
  if constexpr (Steps::kHasFastBlocks) {
    typename Steps::lanes lanes;
    std::int64_t i = begin;
    if (steps.template fast_blocks<kLevel>(lanes, begin, end, i)) return finish_range<kLevel>(steps, lanes, i, end);
  }
  return careful_range<kLevel>(steps, begin, end);
}

// walk_range compiled for each level (simd.hpp). Steps travels by value: a
// copy of its own, which no write through a pointer it holds can change.
template <typename Steps>
using range_fn = typename Steps::partial (*)(Steps, std::int64_t, std::int64_t);

template <typename Steps>
typename Steps::partial walk_baseline(Steps steps, std::int64_t begin, std::int64_t end) {
  return walk_range<simd::baseline>(steps, begin, end);
}

template <typename Steps>
GRAFT_TARGET_AVX2 typename Steps::partial walk_avx2(Steps steps, std::int64_t begin, std::int64_t end) {
  return walk_range<simd::avx2>(steps, begin, end);
}

template <typename Steps>
GRAFT_TARGET_AVX512 typename Steps::partial walk_avx512(Steps steps, std::int64_t begin, std::int64_t end) {
  return walk_range<simd::avx512>(steps, begin, end);
}

// The pass over [0, n) in chunks (chunked.hpp), at the best level this CPU
// runs and the pass allows.
template <typename Steps>
typename Steps::partial walk_chunks(const Steps& steps, std::int64_t n) {
  const range_fn<Steps> walk = pick_simd<range_fn<Steps>>(
      &walk_baseline<Steps>, &walk_avx2<Steps>, Steps::kAvx512 ? &walk_avx512<Steps> : &walk_avx2<Steps>);
  return chunked_reduce<typename Steps::partial>(
      n, [&](std::int64_t b, std::int64_t e) { return walk(steps, b, e); },
      [](typename Steps::partial& into, const typename Steps::partial& next) { combine(into, next); });
}

}  // namespace graft::detail
