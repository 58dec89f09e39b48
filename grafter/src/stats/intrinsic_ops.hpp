#pragma once
// The operations of the AVX-512 and AVX2 loops that GCC 12 does not find from
// the generic vector code of accumulators.hpp, written with intrinsics. Each
// carries its level's target attribute and is deliberately not
// always_inline: GCC refuses to force a function with a wider target into
// the level-generic loop bodies, but inlines these on its own once a body
// sits in its variant (the loops' disassembly shows the single
// instructions). None changes a result bit (see each).

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

// c + a * b per lane, rounded once: one instruction for a multiply and an
// add. The loops use it only for exact products (kFuseProducts), where one
// rounding and two give the same bits.
GRAFT_TARGET_AVX512 inline f64x8 fused_multiply_add(f64x8 a, f64x8 b, f64x8 c) {
  return reinterpret_cast<f64x8>(
      _mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}

// Floats as float64 (exact), converted straight from memory. GCC 12 loads a
// float vector and converts it from a register in halves instead, which
// costs shuffles and, on the CPU measured, about twice the time.
GRAFT_TARGET_AVX512 inline f64x8 widen_floats(const float* p) {
  return reinterpret_cast<f64x8>(_mm512_cvtps_pd(_mm256_loadu_ps(p)));
}

// Eight bfloat16 values as float64 (exact): each becomes the high half of a
// float, and the eight floats convert whole. GCC 12 widens the 16 values of
// a step pair with one 512-bit word shuffle instead (load_f32_pair), which
// took about 10% longer in compare() on AMD Zen 4.
GRAFT_TARGET_AVX512 inline f64x8 widen_bfloat16s(const c10::BFloat16* p) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m256i wide = _mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16);
  return reinterpret_cast<f64x8>(_mm512_cvtps_pd(_mm256_castsi256_ps(wide)));
}

GRAFT_TARGET_AVX2 inline f64x4 widen_floats_avx2(const float* p) {
  return reinterpret_cast<f64x4>(_mm256_cvtps_pd(_mm_loadu_ps(p)));
}

// Four bfloat16 values as float64 (exact): each becomes the high half of a
// float, which converts whole.
GRAFT_TARGET_AVX2 inline f64x4 widen_bfloat16s_avx2(const c10::BFloat16* p) {
  std::int64_t bits;
  std::memcpy(&bits, p, sizeof bits);
  const __m128i wide = _mm_slli_epi32(_mm_cvtepu16_epi32(_mm_cvtsi64_si128(bits)), 16);
  return reinterpret_cast<f64x4>(_mm256_cvtps_pd(_mm_castsi128_ps(wide)));
}

}  // namespace graft::detail
