#pragma once
// float16 values as float32 lanes and back, at each level of simd.hpp: c10's
// own conversion element by element in the baseline x86-64 variants, F16C in
// the AVX2 and AVX-512 ones (AVX-512F's 16-wide forms for 16 lanes there).
//
// Widening is exact everywhere, so every level loads the same values.
// Narrowing rounds to nearest even everywhere (c10's arithmetic, or the
// instruction's immediate mode), and denormal results are kept; only a NaN
// differs: F16C keeps its sign and the top of its payload, c10 writes sign |
// 0x7E00. The F16C results of NaN lanes lose their payload here, so that
// every level writes c10's bits (simd_levels_test checks every float16).

#include <cstring>

#include <c10/util/Half.h>

#include "stats/intrinsic_ops.hpp"
#include "stats/part_vectors.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

// kWidth float16 values (their bits) as float32.
template <simd kLevel, int kWidth>
GRAFT_HOT typename part_vectors<kWidth>::f32 half_bits_to_float(typename part_vectors<kWidth>::u16 bits) {
  typename part_vectors<kWidth>::f32 f;
  if constexpr (kLevel == simd::baseline || kWidth == 2) {
    for (int l = 0; l < kWidth; ++l) f[l] = static_cast<float>(c10::Half(bits[l], c10::Half::from_bits()));
  } else if constexpr (kWidth == 16 && kLevel == simd::avx512) {
    f = avx512_to_float(bits);
  } else if constexpr (kWidth == 16) {
    const f32x8 low = f16c_to_float(__builtin_shufflevector(bits, bits, 0, 1, 2, 3, 4, 5, 6, 7));
    const f32x8 high = f16c_to_float(__builtin_shufflevector(bits, bits, 8, 9, 10, 11, 12, 13, 14, 15));
    f = __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  } else {
    f = f16c_to_float(bits);
  }
  return f;
}

// The kWidth float16 values at p as float32.
template <simd kLevel, int kWidth>
GRAFT_HOT typename part_vectors<kWidth>::f32 half_to_float(const c10::Half* p) {
  typename part_vectors<kWidth>::u16 bits;
  std::memcpy(&bits, p, sizeof bits);
  return half_bits_to_float<kLevel, kWidth>(bits);
}

// kWidth float32 lanes rounded to float16, as c10::Half's bits.
template <simd kLevel, int kWidth>
GRAFT_HOT typename part_vectors<kWidth>::u16 float_to_half(typename part_vectors<kWidth>::f32 f) {
  using u16 = typename part_vectors<kWidth>::u16;
  u16 bits;
  if constexpr (kLevel == simd::baseline || kWidth == 2) {
    for (int l = 0; l < kWidth; ++l) bits[l] = c10::Half(f[l]).x;
    return bits;
  } else {
    if constexpr (kWidth == 16 && kLevel == simd::avx512) {
      bits = avx512_to_half(f);
    } else if constexpr (kWidth == 16) {
      const u16x8 low = f16c_to_half(__builtin_shufflevector(f, f, 0, 1, 2, 3, 4, 5, 6, 7));
      const u16x8 high = f16c_to_half(__builtin_shufflevector(f, f, 8, 9, 10, 11, 12, 13, 14, 15));
      bits = __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    } else {
      bits = f16c_to_half(f);
    }
    // An F16C NaN is sign | 0x7E00 | the payload's top 9 bits: drop those.
    const u16 nan = reinterpret_cast<u16>((bits & 0x7FFFu) > 0x7C00u);
    return bits & ~(nan & 0x01FFu);
  }
}

}  // namespace graft::detail
