// compare() for CPU tensors: one hand-written pass over both tensors,
// accumulating per fixed chunk (see chunked.hpp): float32 and bfloat16 in
// float32 blocks where they fit (float_diff.hpp), everything else in float64.

#include <cmath>
#include <cstdint>

#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>

#include "stats/accumulators.hpp"
#include "stats/chunked.hpp"
#include "stats/float_diff.hpp"
#include "stats/passes.hpp"
#include "stats/split_diff.hpp"

namespace graft::detail {
namespace {

template <typename T>
using diff_lanes_of = diff_lanes<kFloatDifference<T>>;

// One step of kLanes pairs; known_finite skips the test.
template <typename T>
GRAFT_HOT void diff_step(diff_lanes_of<T>& lanes, lanes_f64 a, lanes_f64 b, std::int64_t i, bool known_finite) {
  if (!kMayBeNonFinite<T> || known_finite || all_finite(a, b, b)) {
    lanes.add_finite(a, b, i);
  } else {
    lanes.add_any(a, b, i);
  }
}

// The pairs in [i, end), fewer than a block of the loop that leaves them,
// added to lanes; the folded total.
template <simd kLevel, typename T>
GRAFT_HOT diff_partial diff_tail(diff_lanes_of<T> lanes, const T* x, const T* y, std::int64_t i, std::int64_t end) {
  for (; i + kLanes <= end; i += kLanes) {
    diff_step<T>(lanes, load_lanes<kLevel>(x + i), load_lanes<kLevel>(y + i), i, false);
  }
  for (int l = 0; i < end; ++i, ++l) {
    lanes.add_one(l, static_cast<double>(x[i]), static_cast<double>(y[i]), i);
  }
  return lanes.fold();
}

// Any pairs, step by step: each block of kBlock pairs is tested for
// finiteness once and then added fast or carefully (diff_step).
template <simd kLevel, typename T>
GRAFT_HOT diff_partial diff_careful(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  diff_lanes_of<T> lanes;
  std::int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    lanes_f64 a[kBlockSteps], b[kBlockSteps];
    lanes_f64 probe{};
    for (int s = 0; s < kBlockSteps; ++s) {
      a[s] = load_lanes<kLevel>(x + i + s * kLanes);
      b[s] = load_lanes<kLevel>(y + i + s * kLanes);
      probe += a[s] * 0.0 + b[s] * 0.0;
    }
    const bool finite = probe_clean(probe);
    for (int s = 0; s < kBlockSteps; ++s) diff_step<T>(lanes, a[s], b[s], i + s * kLanes, finite);
  }
  return diff_tail<kLevel>(lanes, x, y, i, end);
}

// A range's whole blocks on the assumption that every value is finite: no
// NaN/Inf tests at all, and the maximum is tracked per block rather than per
// step (the block of each lane's first maximum; the step within it is found
// once at the end). One test of the sums afterwards checks the assumption:
// a NaN or Inf anywhere, or a float64 square beyond range, leaves a sum
// non-finite, and the range goes the careful way from its start instead.
// Either way the sums and the maximum are those diff_careful gives (fused
// products included: kFuseProducts only fuses exact ones).
template <simd kLevel, typename T>
GRAFT_HOT diff_partial diff_unchecked(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  constexpr bool kFuse = kFuseProducts<kLevel, T>;
  constexpr int kParts = kDiffParts<kLevel>;
  using accumulators = split_diff<kParts>;
  using part_f64 = typename accumulators::part_f64;
  accumulators parts;
  std::int64_t i = begin;
  for (; i + kMaxBlock <= end; i += kMaxBlock) {
    part_f64 block_max[kParts];
    for (part_f64& m : block_max) m = part_f64{} - kInfinity;
    for (int s = 0; s < kMaxBlockSteps; s += 2) {
      parts.template add_step_pair<kLevel, kFuse>(x + i + s * kLanes, y + i + s * kLanes, block_max);
    }
    parts.take_block_max(block_max, i);
  }
  diff_lanes<false> lanes = parts.to_lanes();
  if (!lanes.sums_finite()) return diff_careful<kLevel>(x, y, begin, end);
  lanes.find_max_elements(
      [&](std::int64_t k) { return std::abs(static_cast<double>(x[k]) - static_cast<double>(y[k])); });
  return diff_tail<kLevel>(lanes, x, y, i, end);
}

// A float32 or bfloat16 range's whole float blocks summed in float32
// (float_diff.hpp), the rest as diff_careful adds it; a range that float32
// sums do not fit goes diff_careful's way from its start.
template <simd kLevel, typename T>
GRAFT_HOT diff_partial diff_float(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  float_diff<kFloatParts<kLevel>> blocks;
  diff_lanes<true> lanes;
  std::int64_t i = begin;
  for (; i + kFloatBlock <= end; i += kFloatBlock) {
    blocks.add_block(x + i, y + i, static_cast<std::int32_t>(i - begin));
  }
  blocks.sums_into(lanes);
  const std::int64_t blocks_end = i;
  if (!blocks.fits_float(lanes, [&] { return all_zero(x, begin, blocks_end); },
                         [&] { return all_zero(y, begin, blocks_end); })) {
    return diff_careful<kLevel>(x, y, begin, end);
  }
  blocks.template find_max<T>(
      begin, [&](std::int64_t k) { return std::abs(static_cast<float>(x[k]) - static_cast<float>(y[k])); }, lanes);
  return diff_tail<kLevel>(lanes, x, y, i, end);
}

template <simd kLevel, typename T>
GRAFT_HOT diff_partial diff_range_impl(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  if constexpr (kFloatDifference<T>) {
    return diff_float<kLevel>(x, y, begin, end);
  } else if constexpr (kMayBeNonFinite<T>) {
    return diff_unchecked<kLevel>(x, y, begin, end);
  } else {
    return diff_careful<kLevel>(x, y, begin, end);
  }
}

template <typename T>
using diff_range_fn = diff_partial (*)(const T*, const T*, std::int64_t, std::int64_t);

template <typename T>
diff_partial diff_range(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  return diff_range_impl<simd::baseline>(x, y, begin, end);
}

template <typename T>
GRAFT_TARGET_AVX2 diff_partial diff_range_avx2(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  return diff_range_impl<simd::avx2>(x, y, begin, end);
}

template <typename T>
GRAFT_TARGET_AVX512 diff_partial diff_range_avx512(const T* x, const T* y, std::int64_t begin,
                                                   std::int64_t end) {
  return diff_range_impl<simd::avx512>(x, y, begin, end);
}

template <typename T>
diff_range_fn<T> best_diff_range() {
  return pick_simd<diff_range_fn<T>>(&diff_range<T>, &diff_range_avx2<T>, &diff_range_avx512<T>);
}

}  // namespace

diff_metrics cpu_diff_pass(const at::Tensor& x, const at::Tensor& y) {
  // One loop per element type keeps the common same-dtype case copy-free;
  // any other pair is widened to float64 first, which is exact for every
  // real dtype except int64 beyond 2^53.
  const bool typed = x.scalar_type() == y.scalar_type() && has_cpu_loop(x.scalar_type());
  const at::Tensor xc = typed ? x.contiguous() : x.to(at::kDouble).contiguous();
  const at::Tensor yc = typed ? y.contiguous() : y.to(at::kDouble).contiguous();
  const std::int64_t n = xc.numel();

  diff_partial total;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, xc.scalar_type(),
                             "graft_cpu_diff_pass", [&] {
    const scalar_t* xp = xc.data_ptr<scalar_t>();
    const scalar_t* yp = yc.data_ptr<scalar_t>();
    const diff_range_fn<scalar_t> range = best_diff_range<scalar_t>();
    total = chunked_reduce<diff_partial>(
        n, [&](std::int64_t b, std::int64_t e) { return range(xp, yp, b, e); },
        [](diff_partial& into, const diff_partial& next) { combine(into, next); });
  });
  return to_metrics(total, n);
}

}  // namespace graft::detail
