// compare() for CPU tensors: one hand-written pass over both tensors,
// accumulating per fixed chunk (see chunked.hpp): float32 and bfloat16 in
// float32 blocks where they fit (float_diff.hpp), everything else in float64.

#include <cmath>
#include <cstdint>

#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>

#include "stats/accumulators.hpp"
#include "stats/float_diff.hpp"
#include "stats/passes.hpp"
#include "stats/range_driver.hpp"
#include "stats/split_diff.hpp"

namespace graft::detail {
namespace {

// compare()'s step (range_driver.hpp): pairs of values, x's and y's.
template <typename T>
struct diff_steps {
  using partial = diff_partial;
  using lanes = diff_lanes<kFloatDifference<T>>;
  using values = step_values<2>;
  static constexpr bool kMayBeNonFinite = detail::kMayBeNonFinite<T>;
  static constexpr bool kAvx512 = true;
  static constexpr bool kHasFastBlocks = kMayBeNonFinite;

  const T* x;
  const T* y;

  template <simd kLevel>
  GRAFT_HOT values step(std::int64_t i) const {
    return {load_lanes<kLevel>(x + i), load_lanes<kLevel>(y + i)};
  }
  template <simd kLevel>
  GRAFT_HOT void pair(std::int64_t i, values& first, values& second) const {
    const step_pair a = load_step_pair<kLevel>(x + i);
    const step_pair b = load_step_pair<kLevel>(y + i);
    first = {a.first, b.first};
    second = {a.second, b.second};
  }
  GRAFT_HOT void add_finite(lanes& l, const values& v, std::int64_t i) const { l.add_finite(v.v[0], v.v[1], i); }
  GRAFT_HOT void add_any(lanes& l, const values& v, std::int64_t i) const { l.add_any(v.v[0], v.v[1], i); }
  GRAFT_HOT void add_one(lanes& l, int lane, std::int64_t i) const {
    l.add_one(lane, static_cast<double>(x[i]), static_cast<double>(y[i]), i);
  }
  static partial fold(const lanes& l) { return l.fold(); }

  template <simd kLevel>
  GRAFT_HOT bool fast_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    if constexpr (kFloatDifference<T>) {
      return float_blocks<kLevel>(l, begin, end, i);
    } else {
      return unchecked_blocks<kLevel>(l, begin, end, i);
    }
  }

  // Whole blocks on the assumption that every value is finite: no NaN/Inf
  // tests at all, and the maximum tracked per block rather than per step
  // (the block of each lane's first maximum; the step within it is found
  // once at the end). One test of the sums afterwards checks the assumption:
  // a NaN or Inf anywhere, or a float64 square beyond range, leaves a sum
  // non-finite. The sums and the maximum are the careful way's (fused
  // products included: kFuseProducts only fuses exact ones).
  template <simd kLevel>
  GRAFT_HOT bool unchecked_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    constexpr bool kFuse = kFuseProducts<kLevel, T>;
    constexpr int kParts = kDiffParts<kLevel>;
    using part_f64 = typename split_diff<kParts>::part_f64;
    split_diff<kParts> parts;
    for (i = begin; i + kMaxBlock <= end; i += kMaxBlock) {
      part_f64 block_max[kParts];
      for (part_f64& m : block_max) m = part_f64{} - kInfinity;
      for (int s = 0; s < kMaxBlockSteps; s += 2) {
        parts.template add_step_pair<kLevel, kFuse>(x + i + s * kLanes, y + i + s * kLanes, block_max);
      }
      parts.take_block_max(block_max, i);
    }
    l = parts.to_lanes();
    if (!l.sums_finite()) return false;
    l.find_max_elements(
        [&](std::int64_t k) { return std::abs(static_cast<double>(x[k]) - static_cast<double>(y[k])); });
    return true;
  }

  // Whole float blocks of float32 or bfloat16 values summed in float32
  // (float_diff.hpp), where float32 sums fit them.
  template <simd kLevel>
  GRAFT_HOT bool float_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    float_diff<kFloatParts<kLevel>> blocks;
    for (i = begin; i + kFloatBlock <= end; i += kFloatBlock) {
      blocks.add_block(x + i, y + i, static_cast<std::int32_t>(i - begin));
    }
    blocks.sums_into(l);
    const std::int64_t blocks_end = i;
    if (!blocks.fits_float(l, [&] { return all_zero(x, begin, blocks_end); },
                           [&] { return all_zero(y, begin, blocks_end); })) {
      return false;
    }
    blocks.template find_max<T>(
        begin, [&](std::int64_t k) { return std::abs(static_cast<float>(x[k]) - static_cast<float>(y[k])); }, l);
    return true;
  }
};

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
    total = walk_chunks(diff_steps<scalar_t>{xc.data_ptr<scalar_t>(), yc.data_ptr<scalar_t>()}, n);
  });
  return to_metrics(total, n);
}

}  // namespace graft::detail
