#pragma once
// The fused receive pass's writes without measuring (measure=off, and the
// whole blocks of a measured write once their sums stand).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include <ATen/OpMathType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/TypeCast.h>

#include "stats/bf16_exponent_shift.hpp"
#include "stats/bf16_rounding.hpp"
#include "stats/simd.hpp"
#include "stats/write_values.hpp"

namespace graft::detail {

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
GRAFT_HOT void write_elements(const Src* source, Dst* target, at::opmath_type<Src> scale, std::int64_t begin,
                              std::int64_t end) {
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

// write_elements's writes, with AVX512_BF16's rounding where it applies and,
// on an AVX-512 CPU without it, with exponents moved where they can be.
template <simd kLevel, typename Src, typename Dst, bool kScaled>
GRAFT_HOT void write_unmeasured(const Src* source, Dst* target, at::opmath_type<Src> scale,
                                std::int64_t begin, std::int64_t end) {
  if constexpr (kRoundsToBf16<Src, Dst, kScaled>) {
    if (has_bf16_rounding()) {
      scale_to_bf16(source, target, scale, begin, end);
      return;
    }
  }
  if constexpr (kMayShiftExponents<Src, Dst, kScaled>) {
    const std::optional<exponent_shift> shift = as_exponent_shift(scale);
    if (shift && active_simd() == simd::avx512) {
      // Runs of groups that shift; each group that does not is rounded.
      for (std::int64_t i = begin; i < end;) {
        i = shift_exponents(source, target, *shift, i, end);
        const std::int64_t next = std::min(end, i + kShiftGroup);
        write_elements<kLevel, Src, Dst, kScaled>(source, target, scale, i, next);
        i = next;
      }
      return;
    }
  }
  write_elements<kLevel, Src, Dst, kScaled>(source, target, scale, begin, end);
}

}  // namespace graft::detail
