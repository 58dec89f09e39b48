#pragma once
// The fused receive pass's loops (write_measure.hpp), for every pair of
// dtypes and every level of simd.hpp. Included only by the write_from_*.cpp
// files, each of which instantiates one source dtype (write_passes.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/TypeCast.h>

#include "stats/accumulators.hpp"
#include "stats/bf16_exponent_shift.hpp"
#include "stats/bf16_rounding.hpp"
#include "stats/chunked.hpp"
#include "stats/float_diff.hpp"
#include "stats/half_lanes.hpp"
#include "stats/split_diff.hpp"
#include "stats/split_stats.hpp"
#include "stats/write_passes.hpp"

namespace graft::detail {

inline void combine_write(write_partial& into, const write_partial& next) {
  combine(into.diff, next.diff);
  combine(into.before, next.before);
  combine(into.candidate, next.candidate);
}

// Src/Dst: the source and target element types. kScaled: whether to multiply;
// an unscaled candidate is the source value itself, bit for bit.
template <typename Src, bool kScaled>
GRAFT_HOT Src candidate_of(Src value, at::opmath_type<Src> scale) {
  if constexpr (kScaled) {
    return static_cast<Src>(static_cast<at::opmath_type<Src>>(value) * scale);
  } else {
    return value;
  }
}

// Rounds kWidth float lanes to T's values (exact for float) and stores them
// when `to` is given.
template <simd kLevel, int kWidth, typename T>
GRAFT_HOT typename part_vectors<kWidth>::f32 round_to(typename part_vectors<kWidth>::f32 f, T* to) {
  using u32 = typename part_vectors<kWidth>::u32;
  using u16 = typename part_vectors<kWidth>::u16;
  if constexpr (std::is_same_v<T, float>) {
    if (to != nullptr) std::memcpy(to, &f, sizeof f);
  } else if constexpr (std::is_same_v<T, c10::Half>) {
    const u16 bits = float_to_half<kLevel, kWidth>(f);
    if (to != nullptr) std::memcpy(to, &bits, sizeof bits);
    f = half_bits_to_float<kLevel, kWidth>(bits);
  } else {
    const u32 bits = bf16_bits<u32>(f);
    if (to != nullptr) {
      const u16 narrow = __builtin_convertvector(bits, u16);
      std::memcpy(to, &narrow, sizeof narrow);
    }
    const u32 high = bits << 16;
    std::memcpy(&f, &high, sizeof f);
  }
  return f;
}

// The candidate values of kWidth elements and the values written for them,
// as float64 (unused, and so never computed, when nothing is measured).
template <int kWidth>
struct part_values {
  typename part_vectors<kWidth>::f64 candidate, written;
};

using step_values = part_values<kLanes>;

// Writes the kWidth candidates starting at source into target; with a null
// target, only computes them and the values that would be written. kWidth:
// a step (kLanes) or a part of one (split_diff.hpp).
template <simd kLevel, int kWidth, typename Src, typename Dst, bool kScaled>
GRAFT_HOT part_values<kWidth> write_part(const Src* source, Dst* target, at::opmath_type<Src> scale) {
  part_values<kWidth> out;
  if constexpr (!kScaled && std::is_same_v<Src, Dst>) {
    // The candidate is the source value itself: copy the bits (memmove:
    // source may be target).
    out.candidate = load_part<kLevel, kWidth>(source);
    if (target != nullptr) std::memmove(target, source, sizeof(Src) * kWidth);
    out.written = out.candidate;
  } else if constexpr (std::is_same_v<Src, double> && std::is_same_v<Dst, double>) {
    // Scaled: the float64 products, written as they are.
    out.candidate = load_part<kLevel, kWidth>(source) * scale;
    if (target != nullptr) std::memcpy(target, &out.candidate, sizeof out.candidate);
    out.written = out.candidate;
  } else if constexpr (kVectorised<Src> && kVectorised<Dst> && std::is_same_v<Src, Dst>) {
    // Scaled (the branch above takes the unscaled case): rounding the
    // product to the source dtype gives the value written, too.
    out.candidate = widen<kLevel, kWidth>(
        round_to<kLevel, kWidth>(load_floats<kLevel, kWidth>(source) * scale, target));
    out.written = out.candidate;
  } else if constexpr (kVectorised<Src> && kVectorised<Dst>) {
    auto value = load_floats<kLevel, kWidth>(source);
    if constexpr (kScaled) value = round_to<kLevel, kWidth, Src>(value * scale, nullptr);
    out.candidate = widen<kLevel, kWidth>(value);
    out.written = widen<kLevel, kWidth>(round_to<kLevel, kWidth>(value, target));
  } else {
    // Aligned explicitly: without it GCC 12 read this array with aligned
    // vector loads from a stack slot it had not aligned (a crash once this
    // step was inlined into an AVX2 loop).
    alignas(64) Dst written[kWidth];
    for (int l = 0; l < kWidth; ++l) {
      const Src value = candidate_of<Src, kScaled>(source[l], scale);
      written[l] = c10::convert<Dst>(value);
      out.candidate[l] = static_cast<double>(value);
      out.written[l] = static_cast<double>(written[l]);
    }
    if (target != nullptr) std::memcpy(target, written, sizeof written);
  }
  return out;
}

// write_part for one step.
template <simd kLevel, typename Src, typename Dst, bool kScaled>
GRAFT_HOT step_values write_step(const Src* source, Dst* target, at::opmath_type<Src> scale) {
  return write_part<kLevel, kLanes, Src, Dst, kScaled>(source, target, scale);
}

// The values of a float32 or bfloat16 target (kFloatDifference) for the 16
// candidates starting at source, without writing them: as float32 lanes for
// the diff, and the candidates for their statistics (write_step's values):
// as float32 where the source is kVectorised (whole 16-lane vectors), else
// as float64.
template <typename Src>
struct float_step {
  float_lanes written;
  std::conditional_t<kVectorised<Src>, pair_f32, step_pair> candidate;
};

template <simd kLevel, typename Src, typename Dst, bool kScaled>
GRAFT_HOT float_step<Src> measure_float_step(const Src* source, at::opmath_type<Src> scale) {
  if constexpr (kVectorised<Src>) {
    constexpr int kWidth = 2 * kLanes;
    pair_f32 value = load_floats<kLevel, kWidth>(source);
    if constexpr (kScaled) value = round_to<kLevel, kWidth, Src>(value * scale, nullptr);
    return {std::is_same_v<Src, Dst> ? value : round_to<kLevel, kWidth, Dst>(value, nullptr), value};
  } else {
    constexpr Dst* kMeasureOnly = nullptr;
    const step_values first = write_step<kLevel, Src, Dst, kScaled>(source, kMeasureOnly, scale);
    const step_values second = write_step<kLevel, Src, Dst, kScaled>(source + kLanes, kMeasureOnly, scale);
    // The written values are Dst's, exact in float32.
    const lanes_f32 low = __builtin_convertvector(first.written, lanes_f32);
    const lanes_f32 high = __builtin_convertvector(second.written, lanes_f32);
    return {__builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            {first.candidate, second.candidate}};
  }
}

// The value Dst gets for source value `value` (write_step's, one element).
template <typename Src, typename Dst, bool kScaled>
GRAFT_HOT Dst written_value(Src value, at::opmath_type<Src> scale) {
  return c10::convert<Dst>(candidate_of<Src, kScaled>(value, scale));
}

// The accumulators of one measured write; kFloat: the target's dtype takes
// its differences in float32 (kFloatDifference).
template <bool kFloat>
struct write_lanes {
  diff_lanes<kFloat> diff;
  stats_lanes before, candidate;

  // One step: old values of the target, and what was written for them.
  GRAFT_HOT void add(lanes_f64 old_lanes, const step_values& step, std::int64_t i, bool known_finite) {
    if (known_finite || all_finite(old_lanes, step.written, step.candidate)) {
      diff.add_finite(old_lanes, step.written, i);
      before.add_finite(old_lanes);
      candidate.add_finite(step.candidate);
    } else {
      diff.add_any(old_lanes, step.written, i);
      before.add_any(old_lanes);
      candidate.add_any(step.candidate);
    }
  }

  // Whether the statistics only ever saw finite values (an old value or a
  // candidate that is NaN or Inf leaves a sum non-finite).
  GRAFT_HOT bool stats_finite() const { return all_finite(before.sum, candidate.sum, candidate.sum); }

  // Whether an unchecked loop only ever saw finite values (a written value
  // that is NaN or Inf leaves a diff sum non-finite).
  GRAFT_HOT bool sums_finite() const { return diff.sums_finite() && stats_finite(); }
};

template <typename Dst>
using write_lanes_of = write_lanes<kFloatDifference<Dst>>;

// Whether writing Src into Dst converts float16 from or to float32 (the
// rest of the pair float32, bfloat16 or float16 too): F16C's work where the
// level has it (half_lanes.hpp).
template <typename Src, typename Dst>
inline constexpr bool kConvertsHalf = kVectorised<Src> && kVectorised<Dst> &&
                                      (std::is_same_v<Src, c10::Half> || std::is_same_v<Dst, c10::Half>);

// The same writes without measuring: what measure=off runs. A same-dtype
// copy is a memmove; a float16 conversion goes a step at a time (write_step:
// the compiler cannot vectorise c10's); anything else is a plain loop over
// elements, which the compiler vectorises at the full register width of each
// variant (16 float32 lanes with AVX-512).
template <simd kLevel, typename Src, typename Dst, bool kScaled>
GRAFT_HOT write_partial write_only_impl(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                        std::int64_t begin, std::int64_t end) {
  if constexpr (!kScaled && std::is_same_v<Src, Dst>) {
    // The values themselves: the C library's copy (memmove: source may be target).
    std::memmove(target + begin, source + begin, sizeof(Src) * static_cast<std::size_t>(end - begin));
  } else {
    std::int64_t i = begin;
    if constexpr (kConvertsHalf<Src, Dst> && kLevel != simd::baseline) {
      for (; i + kLanes <= end; i += kLanes) write_step<kLevel, Src, Dst, kScaled>(source + i, target + i, scale);
    }
    for (; i < end; ++i) target[i] = c10::convert<Dst>(candidate_of<Src, kScaled>(source[i], scale));
  }
  return {};
}

// Whether writing Src into Dst rounds float to bfloat16: a float32 source,
// or a scaled bfloat16 one (bf16_rounding.hpp).
template <typename Src, typename Dst, bool kScaled>
inline constexpr bool kRoundsToBf16 = std::is_same_v<Dst, c10::BFloat16> &&
                                      (std::is_same_v<Src, float> ||
                                       (kScaled && std::is_same_v<Src, c10::BFloat16>));

// Whether writing Src into Dst may move bfloat16 exponents instead of
// rounding (bf16_exponent_shift.hpp).
template <typename Src, typename Dst, bool kScaled>
inline constexpr bool kMayShiftExponents =
    kScaled && std::is_same_v<Src, c10::BFloat16> && std::is_same_v<Dst, c10::BFloat16>;

// write_only_impl's writes, with AVX512_BF16's rounding where it applies and,
// on an AVX-512 CPU without it, with exponents moved where they can be.
template <simd kLevel, typename Src, typename Dst, bool kScaled>
GRAFT_HOT write_partial write_values(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                     std::int64_t begin, std::int64_t end) {
  if constexpr (kRoundsToBf16<Src, Dst, kScaled>) {
    if (has_bf16_rounding()) {
      scale_to_bf16(source, target, scale, begin, end);
      return {};
    }
  }
  if constexpr (kMayShiftExponents<Src, Dst, kScaled>) {
    const std::optional<exponent_shift> shift = as_exponent_shift(scale);
    if (shift && active_simd() == simd::avx512) {
      // Runs of groups that shift; each group that does not is rounded.
      for (std::int64_t i = begin; i < end;) {
        i = shift_exponents(source, target, *shift, i, end);
        const std::int64_t next = std::min(end, i + kShiftGroup);
        write_only_impl<kLevel, Src, Dst, kScaled>(source, target, scale, i, next);
        i = next;
      }
      return {};
    }
  }
  return write_only_impl<kLevel, Src, Dst, kScaled>(source, target, scale, begin, end);
}

// The steps and elements in [i, end), fewer than a block of the loop that
// leaves them, measured and (kWrite) written one step at a time; the folded
// totals.
template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_tail(write_lanes_of<Dst> lanes, const Src* source, Dst* target,
                                   at::opmath_type<Src> scale, std::int64_t i, std::int64_t end) {
  for (; i + kLanes <= end; i += kLanes) {
    const lanes_f64 old_lanes = load_lanes<kLevel>(target + i);
    lanes.add(old_lanes, write_step<kLevel, Src, Dst, kScaled>(source + i, kWrite ? target + i : nullptr, scale), i,
              false);
  }
  for (int l = 0; i < end; ++i, ++l) {
    const Src value = candidate_of<Src, kScaled>(source[i], scale);
    const Dst new_value = c10::convert<Dst>(value);
    const auto old_value = static_cast<double>(target[i]);
    lanes.diff.add_one(l, old_value, static_cast<double>(new_value), i);
    lanes.before.add_one(l, old_value);
    lanes.candidate.add_one(l, static_cast<double>(value));
    if constexpr (kWrite) target[i] = new_value;
  }
  return {lanes.diff.fold(), lanes.before.fold(), lanes.candidate.fold()};
}

// Any values: each block is measured and (kWrite) written in one go, tested
// for finiteness once and then added fast or carefully (write_lanes::add).
template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_careful(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                      std::int64_t begin, std::int64_t end) {
  write_lanes_of<Dst> lanes;
  std::int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) {
    // Step s reads its old values and its source before writing them, and
    // writes nothing a later step reads: source may be target.
    lanes_f64 old_lanes[kBlockSteps];
    step_values steps[kBlockSteps];
    lanes_f64 probe{};
    for (int s = 0; s < kBlockSteps; s += 2) {
      const step_pair old_pair = load_step_pair<kLevel>(target + i + s * kLanes);
      old_lanes[s] = old_pair.first;
      old_lanes[s + 1] = old_pair.second;
      for (int t = s; t < s + 2; ++t) {
        const std::int64_t at = i + t * kLanes;
        steps[t] = write_step<kLevel, Src, Dst, kScaled>(source + at, kWrite ? target + at : nullptr, scale);
        probe += old_lanes[t] * 0.0 + steps[t].written * 0.0 + steps[t].candidate * 0.0;
      }
    }
    const bool finite = probe_clean(probe);
    for (int s = 0; s < kBlockSteps; ++s) lanes.add(old_lanes[s], steps[s], i + s * kLanes, finite);
  }
  return write_tail<kLevel, Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
}

// A range's whole blocks measured first, on the assumption that every value
// is finite (as compare() does: no NaN/Inf tests, the maximum tracked per
// block, the sums in register-sized parts), and written afterwards by the
// unmeasured loop while they are still in cache. Nothing is written before
// the sums confirm the assumption; when they do not, the range goes
// write_careful's way from its start. Either way the results are
// write_careful's, bit for bit.
template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_unchecked(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                        std::int64_t begin, std::int64_t end) {
  constexpr bool kFuse = kFuseProducts<kLevel, Dst>;  // the diff is of old and written values, both Dst
  constexpr Dst* kMeasureOnly = nullptr;
  // The accumulators in register-sized parts (split_diff.hpp, split_stats.hpp).
  constexpr int kParts = kDiffParts<kLevel>;
  constexpr int kPartLanes = kLanes / kParts;
  using part_f64 = typename part_vectors<kPartLanes>::f64;
  split_diff<kParts> diff;
  split_stats<kParts> before, candidate;
  std::int64_t i = begin;
  for (; i + kMaxBlock <= end; i += kMaxBlock) {
    part_f64 block_max[kParts];
    for (part_f64& m : block_max) m = part_f64{} - kInfinity;
    if constexpr (kParts == 1) {
      // Whole steps, the old values loaded in pairs (load_step_pair).
      for (int s = 0; s < kMaxBlockSteps; s += 2) {
        const std::int64_t at = i + s * kLanes;
        const step_pair old_pair = load_step_pair<kLevel>(target + at);
        const step_values first = write_step<kLevel, Src, Dst, kScaled>(source + at, kMeasureOnly, scale);
        const step_values second = write_step<kLevel, Src, Dst, kScaled>(source + at + kLanes, kMeasureOnly, scale);
        diff.template add_part<kFuse>(0, old_pair.first, first.written, block_max[0]);
        diff.template add_part<kFuse>(0, old_pair.second, second.written, block_max[0]);
        before.add_part(0, old_pair.first);
        before.add_part(0, old_pair.second);
        candidate.add_part(0, first.candidate);
        candidate.add_part(0, second.candidate);
      }
    } else {
      // A part at a time through the block, its diff first and its
      // statistics second: no value is wider than a register (GCC 12 keeps
      // wider ones on the stack), and each loop's accumulators fit AVX2's 16
      // registers (all 13 of a part in one loop did not: two sums went
      // through memory, and 1 MiB of float64 took 145 us, where two loops
      // take 101 and compare() 69). A block's values are in L1 for the second.
      for (int p = 0; p < kParts; ++p) {
        for (int s = 0; s < kMaxBlockSteps; ++s) {
          const std::int64_t at = i + s * kLanes + p * kPartLanes;
          const part_values<kPartLanes> step =
              write_part<kLevel, kPartLanes, Src, Dst, kScaled>(source + at, kMeasureOnly, scale);
          diff.template add_part<kFuse>(p, load_part<kLevel, kPartLanes>(target + at), step.written, block_max[p]);
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
  write_lanes<false> lanes{diff.to_lanes(), before.to_lanes(steps), candidate.to_lanes(steps)};
  if (!lanes.sums_finite()) {
    return write_careful<kLevel, Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  }
  lanes.diff.find_max_elements([&](std::int64_t k) {
    const Dst written = written_value<Src, Dst, kScaled>(source[k], scale);
    return std::abs(static_cast<double>(target[k]) - static_cast<double>(written));
  });
  if constexpr (kWrite) write_values<kLevel, Src, Dst, kScaled>(source, target, scale, begin, i);
  return write_tail<kLevel, Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
}

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

// The same for a float32 or bfloat16 target (kFloatDifference): whole float
// blocks with the diff summed in float32 (float_diff.hpp, as compare() sums
// it), the statistics as write_unchecked takes them. A range that float32
// sums do not fit goes write_careful's way from its start, before anything
// is written.
template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_float(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                    std::int64_t begin, std::int64_t end) {
  float_diff<kFloatParts<kLevel>> blocks;
  split_stats<kDiffParts<kLevel>> before, candidate;
  std::int64_t i = begin;
  for (; i + kFloatBlock <= end; i += kFloatBlock) {
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
  write_lanes<true> lanes;
  lanes.before = before.to_lanes((i - begin) / kLanes);
  lanes.candidate = candidate.to_lanes((i - begin) / kLanes);
  blocks.sums_into(lanes.diff);
  const std::int64_t blocks_end = i;
  if (!lanes.stats_finite() ||
      !blocks.fits_float(lanes.diff, [&] { return all_zero(target, begin, blocks_end); },
                         [&] { return writes_only_zeros<Src, Dst, kScaled>(source, scale, begin, blocks_end); })) {
    return write_careful<kLevel, Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  }
  blocks.template find_max<Dst>(
      begin,
      [&](std::int64_t k) {
        return std::abs(static_cast<float>(target[k]) -
                        static_cast<float>(written_value<Src, Dst, kScaled>(source[k], scale)));
      },
      lanes.diff);
  if constexpr (kWrite) write_values<kLevel, Src, Dst, kScaled>(source, target, scale, begin, i);
  return write_tail<kLevel, Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
}

template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_range_impl(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                         std::int64_t begin, std::int64_t end) {
  if constexpr (kFloatDifference<Dst>) {
    return write_float<kLevel, Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  } else {
    return write_unchecked<kLevel, Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  }
}

template <typename Src, typename Dst>
using write_range_fn = write_partial (*)(const Src*, Dst*, at::opmath_type<Src>, std::int64_t, std::int64_t);

template <simd kLevel, typename Src, typename Dst, bool kScaled, pass_mode kMode>
GRAFT_HOT write_partial range_impl(const Src* source, Dst* target, at::opmath_type<Src> scale, std::int64_t begin,
                                   std::int64_t end) {
  if constexpr (kMode == pass_mode::write) {
    return write_values<kLevel, Src, Dst, kScaled>(source, target, scale, begin, end);
  } else {
    constexpr bool kWrite = kMode == pass_mode::write_measured;
    return write_range_impl<kLevel, Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  }
}

template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
write_partial write_range(const Src* source, Dst* target, at::opmath_type<Src> scale, std::int64_t begin,
                          std::int64_t end) {
  return range_impl<simd::baseline, Src, Dst, kScaled, kMode>(source, target, scale, begin, end);
}

template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
GRAFT_TARGET_AVX2 write_partial write_range_avx2(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                                 std::int64_t begin, std::int64_t end) {
  return range_impl<simd::avx2, Src, Dst, kScaled, kMode>(source, target, scale, begin, end);
}

template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
GRAFT_TARGET_AVX512 write_partial write_range_avx512(const Src* source, Dst* target,
                                                     at::opmath_type<Src> scale, std::int64_t begin,
                                                     std::int64_t end) {
  return range_impl<simd::avx512, Src, Dst, kScaled, kMode>(source, target, scale, begin, end);
}

// AVX-512 only for the pairs of float32, bfloat16 and float16 (converted as
// whole vectors) and float64 into float64 (no conversion): GCC 12 compiles
// the element-wise conversions of the other pairs for AVX-512 so that a
// float64 candidate written as float32 is measured unrounded
// (simd_levels_test catches it); they take the AVX2 variant there.
template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
write_range_fn<Src, Dst> best_write_range() {
  constexpr bool kAvx512 = (kVectorised<Src> && kVectorised<Dst>) || std::is_same_v<Src, Dst>;
  return pick_simd<write_range_fn<Src, Dst>>(
      &write_range<Src, Dst, kScaled, kMode>, &write_range_avx2<Src, Dst, kScaled, kMode>,
      kAvx512 ? &write_range_avx512<Src, Dst, kScaled, kMode> : &write_range_avx2<Src, Dst, kScaled, kMode>);
}

template <typename Src, typename Dst, pass_mode kMode>
write_partial write_all(const at::Tensor& source, double scale, const at::Tensor& target) {
  const Src* s = source.data_ptr<Src>();
  Dst* t = target.data_ptr<Dst>();
  // libtorch rounds a Python-number factor to the tensor's dtype before the
  // multiplication in opmath (1.x) or keeps it in opmath (2.x); the two agree
  // whenever the factor is exact in Src (see scale_is_exact).
  const auto factor = static_cast<at::opmath_type<Src>>(static_cast<Src>(scale));
  write_range_fn<Src, Dst> range = nullptr;
  if constexpr (kMode == pass_mode::measure) {
    // Only the unscaled pass is instantiated: cpu_measure_graft's.
    range = best_write_range<Src, Dst, false, kMode>();
  } else {
    range = scale == 1.0 ? best_write_range<Src, Dst, false, kMode>() : best_write_range<Src, Dst, true, kMode>();
  }
  return chunked_reduce<write_partial>(
      target.numel(), [&](std::int64_t b, std::int64_t e) { return range(s, t, factor, b, e); },
      [](write_partial& into, const write_partial& next) { combine_write(into, next); });
}
template <typename Src, pass_mode kMode>
write_partial write_from(const at::Tensor& source, double scale, const at::Tensor& target) {
  write_partial total;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, target.scalar_type(), "graft_write_measured_target",
                                  [&] { total = write_all<Src, scalar_t, kMode>(source, scale, target); });
  return total;
}

}  // namespace graft::detail
