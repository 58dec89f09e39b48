#pragma once
// The operations of the AVX-512 and AVX2 loops that GCC 12 does not find from
// the generic vector code of accumulators.hpp (or cannot spell in it: the
// float16 conversions), written with intrinsics. Each carries its level's
// target attribute and is deliberately not always_inline: GCC refuses to
// force a function with a wider target into the level-generic loop bodies,
// but inlines these on its own once a body sits in its variant (the loops'
// disassembly shows the single instructions). None changes a result bit
// (see each).

#include <cmath>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include <c10/util/BFloat16.h>

#include "stats/simd.hpp"

// GCC 12's own _mm512_cvtps_pd starts from an undefined vector, which its
// -Wmaybe-uninitialized reports in every loop that inlines it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace graft::detail {

using f64x8 = double __attribute__((vector_size(64)));  // accumulators.hpp's lanes_f64
using f64x4 = double __attribute__((vector_size(32)));  // an AVX2 part (split_diff.hpp)
// The parts of float_diff.hpp's 16 float32 lanes at each level.
using f32x16 = float __attribute__((vector_size(64)));
using f32x8 = float __attribute__((vector_size(32)));
using f32x4 = float __attribute__((vector_size(16)));

// c + a * b per lane, rounded once: one instruction for a multiply and an
// add. The loops use it only for exact products (kFuseProducts), where one
// rounding and two give the same bits.
GRAFT_TARGET_AVX512 inline f64x8 fused_multiply_add(f64x8 a, f64x8 b, f64x8 c) {
  return reinterpret_cast<f64x8>(
      _mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}

// c + a * b per float32 lane, rounded once, at each level: the same bits from
// all three. The baseline x86-64 target has no FMA instruction; the C
// library's fmaf rounds once too (slowly, but only CPUs without AVX2 and FMA
// run it).
GRAFT_TARGET_AVX512 inline f32x16 fused_multiply_add(f32x16 a, f32x16 b, f32x16 c) {
  return reinterpret_cast<f32x16>(
      _mm512_fmadd_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
}

GRAFT_TARGET_AVX2 inline f32x8 fused_multiply_add(f32x8 a, f32x8 b, f32x8 c) {
  return reinterpret_cast<f32x8>(
      _mm256_fmadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
}

inline f32x4 fused_multiply_add(f32x4 a, f32x4 b, f32x4 c) {
  for (int l = 0; l < 4; ++l) c[l] = std::fma(a[l], b[l], c[l]);
  return c;
}

// 4 float32 lanes as float64: one instruction, where GCC 12 converts two
// halves and joins them (accumulators.hpp's widen).
GRAFT_TARGET_AVX2 inline f64x4 widen_f32x4(f32x4 f) {
  return reinterpret_cast<f64x4>(_mm256_cvtps_pd(reinterpret_cast<__m128>(f)));
}

// float16 bits <-> float32 with F16C (AVX2 and AVX-512 levels) or AVX-512F
// (16 at a time); half_lanes.hpp picks them per level and fixes NaNs to
// c10's bits. Widening is exact; narrowing rounds to nearest even (imm 0,
// not MXCSR's mode), as c10::Half does.
using u16x4 = std::uint16_t __attribute__((vector_size(8)));
using u16x8 = std::uint16_t __attribute__((vector_size(16)));
using u16x16 = std::uint16_t __attribute__((vector_size(32)));

GRAFT_TARGET_AVX2 inline f32x4 f16c_to_float(u16x4 bits) {
  __m128i v;
  std::memcpy(&v, &bits, sizeof bits);  // the low 64 bits: cvtph_ps reads only those
  return reinterpret_cast<f32x4>(_mm_cvtph_ps(v));
}

GRAFT_TARGET_AVX2 inline f32x8 f16c_to_float(u16x8 bits) {
  return reinterpret_cast<f32x8>(_mm256_cvtph_ps(reinterpret_cast<__m128i>(bits)));
}

GRAFT_TARGET_AVX512 inline f32x16 avx512_to_float(u16x16 bits) {
  return reinterpret_cast<f32x16>(_mm512_cvtph_ps(reinterpret_cast<__m256i>(bits)));
}

GRAFT_TARGET_AVX2 inline u16x4 f16c_to_half(f32x4 f) {
  const __m128i bits = _mm_cvtps_ph(reinterpret_cast<__m128>(f), _MM_FROUND_TO_NEAREST_INT);
  u16x4 out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

GRAFT_TARGET_AVX2 inline u16x8 f16c_to_half(f32x8 f) {
  return reinterpret_cast<u16x8>(_mm256_cvtps_ph(reinterpret_cast<__m256>(f), _MM_FROUND_TO_NEAREST_INT));
}

GRAFT_TARGET_AVX512 inline u16x16 avx512_to_half(f32x16 f) {
  return reinterpret_cast<u16x16>(_mm512_cvtps_ph(reinterpret_cast<__m512>(f), _MM_FROUND_TO_NEAREST_INT));
}

}  // namespace graft::detail
