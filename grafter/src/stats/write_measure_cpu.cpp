// cpu_write_measured: one pass that writes the candidate into the target and
// accumulates the diff and both sides' statistics (see write_measure.hpp).

#include "stats/write_measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/TypeCast.h>

#include <graft/error.hpp>

#include "stats/accumulators.hpp"
#include "stats/bf16_exponent_shift.hpp"
#include "stats/bf16_rounding.hpp"
#include "stats/chunked.hpp"
#include "stats/float_diff.hpp"

namespace graft::detail {
namespace {

// What a pass over source and target does: write the candidates, write and
// measure them, or only measure what writing them would do (the target is
// then only read).
enum class pass_mode { write, write_measured, measure };

struct write_partial {
  diff_partial diff;
  stats_partial before, candidate;
};

void combine_write(write_partial& into, const write_partial& next) {
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

// Rounds float lanes to T's values (exact for float) and stores them when
// `to` is given.
template <typename T>
GRAFT_HOT lanes_f32 round_to(lanes_f32 f, T* to) {
  if constexpr (std::is_same_v<T, float>) {
    if (to != nullptr) std::memcpy(to, &f, sizeof f);
    return f;
  } else {
    const lanes_u16 bits = f32_to_bf16(f);
    if (to != nullptr) std::memcpy(to, &bits, sizeof bits);
    return bf16_to_f32(bits);
  }
}

// Two steps of float rounded to T's values, as floats (round_to's values).
template <typename T>
GRAFT_HOT pair_f32 round_pair(pair_f32 f) {
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else {
    const pair_u32 bits = bf16_bits<pair_u32>(f) << 16;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
}

// The candidate values of one step and the values written for them, as
// float64 (unused, and so never computed, when nothing is measured).
struct step_values {
  lanes_f64 candidate, written;
};

// Writes the kLanes candidates starting at source into target; with a null
// target, only computes them and the values that would be written.
template <typename Src, typename Dst, bool kScaled>
GRAFT_HOT step_values write_step(const Src* source, Dst* target, at::opmath_type<Src> scale) {
  step_values out;
  if constexpr (!kScaled && std::is_same_v<Src, Dst>) {
    // The candidate is the source value itself: copy the bits (memmove:
    // source may be target).
    out.candidate = load_lanes(source);
    if (target != nullptr) std::memmove(target, source, sizeof(Src) * kLanes);
    out.written = out.candidate;
  } else if constexpr (kVectorised<Src> && kVectorised<Dst> && std::is_same_v<Src, Dst>) {
    // Scaled (the branch above takes the unscaled case): rounding the
    // product to the source dtype gives the value written, too.
    out.candidate = __builtin_convertvector(round_to<Src>(load_f32(source) * scale, target), lanes_f64);
    out.written = out.candidate;
  } else if constexpr (kVectorised<Src> && kVectorised<Dst>) {
    lanes_f32 value = load_f32(source);
    if constexpr (kScaled) value = round_to<Src>(value * scale, nullptr);
    out.candidate = __builtin_convertvector(value, lanes_f64);
    out.written = __builtin_convertvector(round_to<Dst>(value, target), lanes_f64);
  } else {
    // Aligned explicitly: without it GCC 12 read this array with aligned
    // vector loads from a stack slot it had not aligned (a crash once this
    // step was inlined into an AVX2 loop).
    alignas(64) Dst written[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      const Src value = candidate_of<Src, kScaled>(source[l], scale);
      written[l] = c10::convert<Dst>(value);
      out.candidate[l] = static_cast<double>(value);
      out.written[l] = static_cast<double>(written[l]);
    }
    if (target != nullptr) std::memcpy(target, written, sizeof written);
  }
  return out;
}

// The values of a float32 or bfloat16 target (kFloatDifference) for the 16
// candidates starting at source, without writing them: as float32 lanes for
// the diff, and the candidates as float64 for their statistics (write_step's
// values, whole 16-lane vectors where the source is float32 or bfloat16 too).
struct float_step {
  float_lanes written;
  step_pair candidate;
};

template <typename Src, typename Dst, bool kScaled>
GRAFT_HOT float_step measure_float_step(const Src* source, at::opmath_type<Src> scale) {
  if constexpr (kVectorised<Src>) {
    pair_f32 value = load_f32_pair(source);
    if constexpr (kScaled) value = round_pair<Src>(value * scale);
    return {std::is_same_v<Src, Dst> ? value : round_pair<Dst>(value), widen_pair(value)};
  } else {
    constexpr Dst* kMeasureOnly = nullptr;
    const step_values first = write_step<Src, Dst, kScaled>(source, kMeasureOnly, scale);
    const step_values second = write_step<Src, Dst, kScaled>(source + kLanes, kMeasureOnly, scale);
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

  // One step of finite values, unchecked (diff_lanes::add_unchecked).
  template <bool kFuse>
  GRAFT_HOT void add_unchecked(lanes_f64 old_lanes, const step_values& step, lanes_f64& block_max) {
    diff.template add_unchecked<kFuse>(old_lanes, step.written, block_max);
    before.add_finite(old_lanes);
    candidate.add_finite(step.candidate);
  }

  // Whether the statistics only ever saw finite values (an old value or a
  // candidate that is NaN or Inf leaves a sum non-finite).
  GRAFT_HOT bool stats_finite() const { return all_finite(before.sum, candidate.sum, candidate.sum); }

  // Whether add_unchecked only ever saw finite values (a written value that
  // is NaN or Inf leaves a diff sum non-finite).
  GRAFT_HOT bool sums_finite() const { return diff.sums_finite() && stats_finite(); }
};

template <typename Dst>
using write_lanes_of = write_lanes<kFloatDifference<Dst>>;

// The same writes without measuring: what measure=off runs. A same-dtype
// copy is a memmove; anything else a plain loop over elements, which the
// compiler vectorises at the full register width of each variant (16
// float32 lanes with AVX-512).
template <typename Src, typename Dst, bool kScaled>
GRAFT_HOT write_partial write_only_impl(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                        std::int64_t begin, std::int64_t end) {
  if constexpr (!kScaled && std::is_same_v<Src, Dst>) {
    // The values themselves: the C library's copy (memmove: source may be target).
    std::memmove(target + begin, source + begin, sizeof(Src) * static_cast<std::size_t>(end - begin));
  } else {
    for (std::int64_t i = begin; i < end; ++i) {
      target[i] = c10::convert<Dst>(candidate_of<Src, kScaled>(source[i], scale));
    }
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
template <typename Src, typename Dst, bool kScaled>
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
        write_only_impl<Src, Dst, kScaled>(source, target, scale, i, next);
        i = next;
      }
      return {};
    }
  }
  return write_only_impl<Src, Dst, kScaled>(source, target, scale, begin, end);
}

// The steps and elements in [i, end), fewer than a block of the loop that
// leaves them, measured and (kWrite) written one step at a time; the folded
// totals.
template <typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_tail(write_lanes_of<Dst> lanes, const Src* source, Dst* target,
                                   at::opmath_type<Src> scale, std::int64_t i, std::int64_t end) {
  for (; i + kLanes <= end; i += kLanes) {
    const lanes_f64 old_lanes = load_lanes(target + i);
    lanes.add(old_lanes, write_step<Src, Dst, kScaled>(source + i, kWrite ? target + i : nullptr, scale), i, false);
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
template <typename Src, typename Dst, bool kScaled, bool kWrite>
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
      const step_pair old_pair = load_step_pair(target + i + s * kLanes);
      old_lanes[s] = old_pair.first;
      old_lanes[s + 1] = old_pair.second;
      for (int t = s; t < s + 2; ++t) {
        const std::int64_t at = i + t * kLanes;
        steps[t] = write_step<Src, Dst, kScaled>(source + at, kWrite ? target + at : nullptr, scale);
        probe += old_lanes[t] * 0.0 + steps[t].written * 0.0 + steps[t].candidate * 0.0;
      }
    }
    const bool finite = probe_clean(probe);
    for (int s = 0; s < kBlockSteps; ++s) lanes.add(old_lanes[s], steps[s], i + s * kLanes, finite);
  }
  return write_tail<Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
}

// A range's whole blocks measured first, on the assumption that every value
// is finite (as compare() does: no NaN/Inf tests, the maximum tracked per
// block), and written afterwards by the unmeasured loop while they are still
// in cache. Nothing is written before the sums confirm the assumption; when
// they do not, the range goes write_careful's way from its start. Either
// way the results are write_careful's, bit for bit.
template <simd kLevel, typename Src, typename Dst, bool kScaled, bool kWrite>
GRAFT_HOT write_partial write_unchecked(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                        std::int64_t begin, std::int64_t end) {
  constexpr bool kFuse = kFuseProducts<kLevel, Dst>;  // the diff is of old and written values, both Dst
  constexpr Dst* kMeasureOnly = nullptr;
  write_lanes<false> lanes;
  std::int64_t i = begin;
  for (; i + kMaxBlock <= end; i += kMaxBlock) {
    lanes_f64 block_max = splat(-kInfinity);
    for (int s = 0; s < kMaxBlockSteps; s += 2) {
      const std::int64_t at = i + s * kLanes;
      const step_pair old_pair = load_step_pair(target + at);
      const step_values first = write_step<Src, Dst, kScaled>(source + at, kMeasureOnly, scale);
      const step_values second = write_step<Src, Dst, kScaled>(source + at + kLanes, kMeasureOnly, scale);
      lanes.template add_unchecked<kFuse>(old_pair.first, first, block_max);
      lanes.template add_unchecked<kFuse>(old_pair.second, second, block_max);
    }
    lanes.diff.take_block_max(block_max, i);
  }
  if (!lanes.sums_finite()) return write_careful<Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  lanes.diff.find_max_elements([&](std::int64_t k) {
    const Dst written = written_value<Src, Dst, kScaled>(source[k], scale);
    return std::abs(static_cast<double>(target[k]) - static_cast<double>(written));
  });
  if constexpr (kWrite) write_values<Src, Dst, kScaled>(source, target, scale, begin, i);
  return write_tail<Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
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
  write_lanes<true> lanes;
  std::int64_t i = begin;
  for (; i + kFloatBlock <= end; i += kFloatBlock) {
    for (int s = 0; s < kFloatBlock; s += kFloatStep<Dst>) {
      // The step's 16 or 32 elements in order, 16 at a time, for the
      // statistics; their lane values (float_diff.hpp) for the diff.
      float_lanes written[kLaneValues<Dst>];
      for (int h = 0; h < kLaneValues<Dst>; ++h) {
        const std::int64_t at = i + s + h * kFloatLanes;
        const float_step step = measure_float_step<Src, Dst, kScaled>(source + at, scale);
        written[h] = step.written;
        const step_pair old_lanes = load_step_pair(target + at);
        lanes.before.add_finite(old_lanes.first);
        lanes.before.add_finite(old_lanes.second);
        lanes.candidate.add_finite(step.candidate.first);
        lanes.candidate.add_finite(step.candidate.second);
      }
      const lane_values<kFloatLanes, Dst> old_values = load_float_part<kFloatLanes>(target + i + s);
      if constexpr (kLaneValues<Dst> == 1) {
        blocks.add_step(old_values[0], written[0]);
      } else {
        const std::array<float_lanes, 2> written_values = deinterleave(written[0], written[1]);
        for (int j = 0; j < 2; ++j) blocks.add_step(old_values[j], written_values[j]);
      }
    }
    blocks.end_block(static_cast<std::int32_t>(i - begin));
  }
  blocks.sums_into(lanes.diff);
  const std::int64_t blocks_end = i;
  if (!lanes.stats_finite() ||
      !blocks.fits_float(lanes.diff, [&] { return all_zero(target, begin, blocks_end); },
                         [&] { return writes_only_zeros<Src, Dst, kScaled>(source, scale, begin, blocks_end); })) {
    return write_careful<Src, Dst, kScaled, kWrite>(source, target, scale, begin, end);
  }
  blocks.template find_max<Dst>(
      begin,
      [&](std::int64_t k) {
        return std::abs(static_cast<float>(target[k]) -
                        static_cast<float>(written_value<Src, Dst, kScaled>(source[k], scale)));
      },
      lanes.diff);
  if constexpr (kWrite) write_values<Src, Dst, kScaled>(source, target, scale, begin, i);
  return write_tail<Src, Dst, kScaled, kWrite>(lanes, source, target, scale, i, end);
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
    return write_values<Src, Dst, kScaled>(source, target, scale, begin, end);
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

// AVX-512 only for the float32/bfloat16 pairs: GCC 12 compiles the
// element-wise conversions of the other pairs for AVX-512 so that a float64
// candidate written as float32 is measured unrounded (simd_levels_test
// catches it); they take the AVX2 variant there.
template <typename Src, typename Dst, bool kScaled, pass_mode kMode>
write_range_fn<Src, Dst> best_write_range() {
  constexpr bool kAvx512 = kVectorised<Src> && kVectorised<Dst>;
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

void check_operand(const at::Tensor& t, const char* role) {
  if (!t.defined() || !t.is_cpu() || t.layout() != at::kStrided || !t.is_contiguous() ||
      !has_write_measure_loop(t.scalar_type())) {
    GRAFT_THROW(error, std::string("the one-pass write: the ") + role +
                           " must be a contiguous CPU float32/float64/float16/bfloat16 tensor");
  }
}

}  // namespace

bool scale_is_exact(at::ScalarType source, double scale) {
  bool exact = false;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, source, "graft_scale_is_exact", [&] {
    exact = static_cast<double>(static_cast<scalar_t>(scale)) == scale ||
            std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>;
  });
  return exact;
}

namespace {

void check_operands(const at::Tensor& source, const at::Tensor& target) {
  check_operand(source, "source");
  check_operand(target, "target");
  if (source.numel() != target.numel() || target.numel() == 0) {
    GRAFT_THROW(error, "the one-pass write: source and target need the same, non-zero numel");
  }
}

template <pass_mode kMode>
write_partial write_checked(const at::Tensor& source, double scale, const at::Tensor& target) {
  check_operands(source, target);
  write_partial total;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, source.scalar_type(),
                                  "graft_write_measured_source", [&] {
    using source_t = scalar_t;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, target.scalar_type(),
                                    "graft_write_measured_target", [&] {
      total = write_all<source_t, scalar_t, kMode>(source, scale, target);
    });
  });
  return total;
}

measured_write to_measured_write(const write_partial& total, std::int64_t numel) {
  return {to_metrics(total.diff, numel), to_value_stats(total.before), to_value_stats(total.candidate)};
}

}  // namespace

measured_write cpu_write_measured(const at::Tensor& source, double scale, const at::Tensor& target) {
  return to_measured_write(write_checked<pass_mode::write_measured>(source, scale, target), target.numel());
}

void cpu_write(const at::Tensor& source, double scale, const at::Tensor& target) {
  write_checked<pass_mode::write>(source, scale, target);
}

measured_write cpu_measure_graft(const at::Tensor& candidate, const at::Tensor& target) {
  return to_measured_write(write_checked<pass_mode::measure>(candidate, 1.0, target), target.numel());
}

}  // namespace graft::detail
