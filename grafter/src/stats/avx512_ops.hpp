#pragma once
// Two operations of the AVX-512 variants that GCC 12 does not find from the
// generic vector code of accumulators.hpp, written with intrinsics. Each
// carries the AVX-512 target attribute and is deliberately not
// always_inline: GCC refuses to force a function with a wider target into
// the level-generic loop bodies, but inlines these on its own once a body
// sits in its AVX-512 variant (the loops' disassembly shows the single
// instructions). Neither changes a result bit (see each).
//
// The AVX2 and baseline variants do without: GCC keeps their 64-byte lane
// vectors in memory, and splitting these operations into halves there only
// adds shuffles (measured slower).

#include <immintrin.h>

#include "stats/simd.hpp"

// The functions pass 64-byte vectors; when GCC does not inline one, the call
// stays between this library's own AVX-512 loops, all built with the same
// flags, so GCC's -Wpsabi note about that ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's own _mm512_cvtps_pd starts from an undefined vector, which its
// -Wmaybe-uninitialized reports in every loop that inlines it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace graft::detail {

using avx512_lanes = double __attribute__((vector_size(64)));  // accumulators.hpp's lanes_f64

// c + a * b per lane, rounded once: one instruction for a multiply and an
// add. The loops use it only for exact products (kFuseProducts), where one
// rounding and two give the same bits.
GRAFT_TARGET_AVX512 inline avx512_lanes fused_multiply_add(avx512_lanes a, avx512_lanes b, avx512_lanes c) {
  return reinterpret_cast<avx512_lanes>(
      _mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}

// The 8 floats at p as float64 (exact), converted straight from memory.
// GCC 12 loads a float vector and converts it from a register instead,
// which costs a shuffle for every other step and, on the CPU measured,
// about twice the time of the memory form.
GRAFT_TARGET_AVX512 inline avx512_lanes widen_floats(const float* p) {
  return reinterpret_cast<avx512_lanes>(_mm512_cvtps_pd(_mm256_loadu_ps(p)));
}

}  // namespace graft::detail
