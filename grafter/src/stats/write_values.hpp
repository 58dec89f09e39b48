#pragma once
// What the fused receive pass (write_measure.hpp) computes for each step:
// the candidates, the values a target of another dtype gets for them, and
// their writing, for every pair of dtypes and every level of simd.hpp.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <ATen/OpMathType.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/TypeCast.h>

#include "stats/accumulators.hpp"
#include "stats/half_lanes.hpp"
#include "stats/part_vectors.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

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

// One step's: what write_step gives.
using written_step = part_values<kLanes>;

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
GRAFT_HOT written_step write_step(const Src* source, Dst* target, at::opmath_type<Src> scale) {
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
    const written_step first = write_step<kLevel, Src, Dst, kScaled>(source, kMeasureOnly, scale);
    const written_step second = write_step<kLevel, Src, Dst, kScaled>(source + kLanes, kMeasureOnly, scale);
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

}  // namespace graft::detail
