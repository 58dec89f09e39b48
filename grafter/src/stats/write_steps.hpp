#pragma once
// The fused receive pass (write_measure.hpp) as a step of range_driver.hpp,
// for every pair of dtypes and every level of simd.hpp. Included only by the
// write_from_*.cpp files, each of which instantiates one source dtype
// (write_passes.hpp).

#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <c10/util/TypeCast.h>

#include "stats/accumulators.hpp"
#include "stats/float_diff.hpp"
#include "stats/range_driver.hpp"
#include "stats/split_diff.hpp"
#include "stats/split_stats.hpp"
#include "stats/unmeasured_write.hpp"
#include "stats/write_passes.hpp"
#include "stats/write_values.hpp"

namespace graft::detail {

inline void combine(write_partial& into, const write_partial& next) {
  combine(into.diff, next.diff);
  combine(into.before, next.before);
  combine(into.candidate, next.candidate);
}

// The accumulators of one measured write; kFloat: the target's dtype takes
// its differences in float32 (kFloatDifference).
template <bool kFloat>
struct write_lanes {
  diff_lanes<kFloat> diff;
  stats_lanes before, candidate;

  // Whether the statistics only ever saw finite values (an old value or a
  // candidate that is NaN or Inf leaves a sum non-finite).
  GRAFT_HOT bool stats_finite() const { return all_finite(before.sum, candidate.sum, candidate.sum); }

  // Whether a fast path only ever saw finite values (a written value that is
  // NaN or Inf leaves a diff sum non-finite).
  GRAFT_HOT bool sums_finite() const { return diff.sums_finite() && stats_finite(); }
};

// Whether every value written for [begin, end) is zero (either sign).
template <typename Src, typename Dst, bool kScaled>
bool writes_only_zeros(const Src* source, at::opmath_type<Src> scale, std::int64_t begin, std::int64_t end) {
  if constexpr (!kScaled && std::is_same_v<Src, Dst>) {
    return all_zero(source, begin, end);  // the values themselves
  } else {
    bool nonzero = false;
    for (std::int64_t k = begin; k < end; ++k) nonzero |= written_value<Src, Dst, kScaled>(source[k], scale) != 0;
    return !nonzero;
  }
}

// Src/Dst: the source and target element types; kScaled: whether the
// candidates are the source values times scale. A step's values are the
// target's old values, the values written for the candidates, and the
// candidates (step_values' v[0], v[1], v[2]).
template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
struct write_steps {
  using partial = write_partial;
  using lanes = write_lanes<kFloatDifference<Dst>>;
  using values = step_values<3>;
  static constexpr bool kMayBeNonFinite = true;
  static constexpr bool kHasFastBlocks = true;
  // AVX-512 only for the pairs of float32, bfloat16 and float16 (converted
  // as whole vectors) and same-dtype pairs: GCC 12 compiles the
  // element-wise conversions of the other pairs for AVX-512 so that a
  // float64 candidate written as float32 is measured unrounded
  // (simd_levels_test catches it); they take the AVX2 variant there.
  static constexpr bool kAvx512 = (kVectorised<Src> && kVectorised<Dst>) || std::is_same_v<Src, Dst>;
  static constexpr bool kWrite = kMode != pass_mode::measure;

  const Src* source;
  Dst* target;
  at::opmath_type<Src> scale;

  // Where step i writes: nowhere when the pass only measures.
  GRAFT_HOT Dst* write_to(std::int64_t i) const { return kWrite ? target + i : nullptr; }

  template <simd kLevel>
  GRAFT_HOT values with_old(lanes_f64 old, std::int64_t i) const {
    const written_step step = write_step<kLevel, Src, Dst, kScaled>(source + i, write_to(i), scale);
    return {old, step.written, step.candidate};
  }
  template <simd kLevel>
  GRAFT_HOT values step(std::int64_t i) const {
    return with_old<kLevel>(load_lanes<kLevel>(target + i), i);
  }
  template <simd kLevel>
  GRAFT_HOT void pair(std::int64_t i, values& first, values& second) const {
    const step_pair old = load_step_pair<kLevel>(target + i);
    first = with_old<kLevel>(old.first, i);
    second = with_old<kLevel>(old.second, i + kLanes);
  }
  GRAFT_HOT void add_finite(lanes& l, const values& v, std::int64_t i) const {
    l.diff.add_finite(v.v[0], v.v[1], i);
    l.before.add_finite(v.v[0]);
    l.candidate.add_finite(v.v[2]);
  }
  GRAFT_HOT void add_any(lanes& l, const values& v, std::int64_t i) const {
    l.diff.add_any(v.v[0], v.v[1], i);
    l.before.add_any(v.v[0]);
    l.candidate.add_any(v.v[2]);
  }
  GRAFT_HOT void add_one(lanes& l, int lane, std::int64_t i) const {
    const Src value = candidate_of<Src, kScaled>(source[i], scale);
    const Dst new_value = c10::convert<Dst>(value);
    const auto old_value = static_cast<double>(target[i]);
    l.diff.add_one(lane, old_value, static_cast<double>(new_value), i);
    l.before.add_one(lane, old_value);
    l.candidate.add_one(lane, static_cast<double>(value));
    if constexpr (kWrite) target[i] = new_value;
  }
  static partial fold(const lanes& l) { return {l.diff.fold(), l.before.fold(), l.candidate.fold()}; }

  // The whole blocks measured first, on the assumption that every value is
  // finite (as compare() does), and written afterwards by the unmeasured
  // loop while they are still in cache. Nothing is written before the sums
  // confirm the assumption. An unmeasured pass writes the whole range here.
  template <simd kLevel>
  GRAFT_HOT bool fast_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    if constexpr (kMode == pass_mode::write) {
      write_unmeasured<kLevel, Src, Dst, kScaled>(source, target, scale, begin, end);
      i = end;
      return true;
    } else {
      bool stand = false;
      if constexpr (kFloatDifference<Dst>) {
        stand = float_blocks<kLevel>(l, begin, end, i);
      } else {
        stand = unchecked_blocks<kLevel>(l, begin, end, i);
      }
      if (stand && kWrite) write_unmeasured<kLevel, Src, Dst, kScaled>(source, target, scale, begin, i);
      return stand;
    }
  }

  // compare()'s unchecked blocks (diff_pass_cpu.cpp) with the statistics of
  // both sides.
  template <simd kLevel>
  GRAFT_HOT bool unchecked_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    constexpr bool kFuse = kFuseProducts<kLevel, Dst>;  // the diff is of old and written values, both Dst
    constexpr Dst* kMeasureOnly = nullptr;
    // The accumulators in register-sized parts (split_diff.hpp, split_stats.hpp).
    constexpr int kParts = kDiffParts<kLevel>;
    constexpr int kPartLanes = kLanes / kParts;
    using part_f64 = typename part_vectors<kPartLanes>::f64;
    split_diff<kParts> diff;
    split_stats<kParts> before, candidate;
    for (i = begin; i + kMaxBlock <= end; i += kMaxBlock) {
      part_f64 block_max[kParts];
      for (part_f64& m : block_max) m = part_f64{} - kInfinity;
      if constexpr (kParts == 1) {
        // Whole steps, the old values loaded in pairs (load_step_pair).
        for (int s = 0; s < kMaxBlockSteps; s += 2) {
          const std::int64_t at = i + s * kLanes;
          const step_pair old_pair = load_step_pair<kLevel>(target + at);
          const written_step first = write_step<kLevel, Src, Dst, kScaled>(source + at, kMeasureOnly, scale);
          const written_step second =
              write_step<kLevel, Src, Dst, kScaled>(source + at + kLanes, kMeasureOnly, scale);
          diff.template add_part<kFuse>(0, old_pair.first, first.written, block_max[0]);
          diff.template add_part<kFuse>(0, old_pair.second, second.written, block_max[0]);
          before.add_part(0, old_pair.first);
          before.add_part(0, old_pair.second);
          candidate.add_part(0, first.candidate);
          candidate.add_part(0, second.candidate);
        }
      } else {
        // A part at a time through the block, its diff first and its
        // statistics second: no value is wider than a register (GCC 12
        // keeps wider ones on the stack), and each loop's accumulators fit
        // AVX2's 16 registers (all 13 of a part in one loop do not: two sums
        // go through memory, docs/benchmarks.md). A block's values are in L1
        // for the second.
        for (int p = 0; p < kParts; ++p) {
          for (int s = 0; s < kMaxBlockSteps; ++s) {
            const std::int64_t at = i + s * kLanes + p * kPartLanes;
            const part_values<kPartLanes> step =
                write_part<kLevel, kPartLanes, Src, Dst, kScaled>(source + at, kMeasureOnly, scale);
            diff.template add_part<kFuse>(p, load_part<kLevel, kPartLanes>(target + at), step.written,
                                          block_max[p]);
          }
          for (int s = 0; s < kMaxBlockSteps; ++s) {
            const std::int64_t at = i + s * kLanes + p * kPartLanes;
            before.add_part(p, load_part<kLevel, kPartLanes>(target + at));
            candidate.add_part(p, write_part<kLevel, kPartLanes, Src, Dst, kScaled>(source + at, kMeasureOnly, scale)
                                      .candidate);
          }
        }
      }
      diff.take_block_max(block_max, i);
    }
    const std::int64_t steps = (i - begin) / kLanes;
    l = {diff.to_lanes(), before.to_lanes(steps), candidate.to_lanes(steps)};
    if (!l.sums_finite()) return false;
    l.diff.find_max_elements([&](std::int64_t k) {
      const Dst written = written_value<Src, Dst, kScaled>(source[k], scale);
      return std::abs(static_cast<double>(target[k]) - static_cast<double>(written));
    });
    return true;
  }

  // compare()'s float blocks (float_diff.hpp) for a float32 or bfloat16
  // target, the statistics as unchecked_blocks takes them.
  template <simd kLevel>
  GRAFT_HOT bool float_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    float_diff<kFloatParts<kLevel>> blocks;
    split_stats<kDiffParts<kLevel>> before, candidate;
    for (i = begin; i + kFloatBlock <= end; i += kFloatBlock) {
      for (int s = 0; s < kFloatBlock; s += kFloatStep<Dst>) {
        // The step's 16 or 32 elements in order, 16 at a time, for the
        // statistics; their lane values (float_diff.hpp) for the diff.
        float_lanes written[kLaneValues<Dst>];
        for (int h = 0; h < kLaneValues<Dst>; ++h) {
          const std::int64_t at = i + s + h * kFloatLanes;
          const float_step<Src> step = measure_float_step<kLevel, Src, Dst, kScaled>(source + at, scale);
          written[h] = step.written;
          before.template add_floats<kLevel>(load_floats<kLevel, 2 * kLanes>(target + at));
          if constexpr (kVectorised<Src>) {
            candidate.template add_floats<kLevel>(step.candidate);
          } else {
            candidate.add_pair(step.candidate);
          }
        }
        const lane_values<kFloatLanes, Dst> old_values = load_float_part<kFloatLanes>(target + i + s);
        if constexpr (kLaneValues<Dst> == 1) {
          blocks.add_step(old_values[0], written[0]);
        } else {
          const std::array<float_lanes, 2> written_values = deinterleave<kLevel>(written[0], written[1]);
          for (int j = 0; j < 2; ++j) blocks.add_step(old_values[j], written_values[j]);
        }
      }
      blocks.end_block(static_cast<std::int32_t>(i - begin));
    }
    l.before = before.to_lanes((i - begin) / kLanes);
    l.candidate = candidate.to_lanes((i - begin) / kLanes);
    blocks.sums_into(l.diff);
    const std::int64_t blocks_end = i;
    if (!l.stats_finite() ||
        !blocks.fits_float(l.diff, [&] { return all_zero(target, begin, blocks_end); },
                           [&] { return writes_only_zeros<Src, Dst, kScaled>(source, scale, begin, blocks_end); })) {
      return false;
    }
    blocks.template find_max<Dst>(
        begin,
        [&](std::int64_t k) {
          return std::abs(static_cast<float>(target[k]) -
                          static_cast<float>(written_value<Src, Dst, kScaled>(source[k], scale)));
        },
        l.diff);
    return true;
  }
};

template <typename Src, typename Dst, pass_mode kMode>
write_partial write_all(const at::Tensor& source, double scale, const at::Tensor& target) {
  const Src* s = source.data_ptr<Src>();
  Dst* t = target.data_ptr<Dst>();
  // libtorch rounds a Python-number factor to the tensor's dtype before the
  // multiplication in opmath (1.x) or keeps it in opmath (2.x); the two agree
  // whenever the factor is exact in Src (see scale_is_exact).
  const auto factor = static_cast<at::opmath_type<Src>>(static_cast<Src>(scale));
  const std::int64_t n = target.numel();
  if constexpr (kMode == pass_mode::measure) {
    // Only the unscaled pass is instantiated: cpu_measure_graft's.
    return walk_chunks(write_steps<Src, Dst, false, kMode>{s, t, factor}, n);
  } else {
    return scale == 1.0 ? walk_chunks(write_steps<Src, Dst, false, kMode>{s, t, factor}, n)
                        : walk_chunks(write_steps<Src, Dst, true, kMode>{s, t, factor}, n);
  }
}

template <typename Src, pass_mode kMode>
write_partial write_from(const at::Tensor& source, double scale, const at::Tensor& target) {
  write_partial total;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, target.scalar_type(), "graft_write_measured_target",
                                  [&] { total = write_all<Src, scalar_t, kMode>(source, scale, target); });
  return total;
}

}  // namespace graft::detail
