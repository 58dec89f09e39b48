#pragma once
// Unmeasured writes into a bfloat16 target with AVX512_BF16's rounding
// instruction, for the one pair of cases where rounding float to bfloat16 is
// most of the work: a float32 or bfloat16 source, scaled or not.
//
// vcvtneps2bf16 rounds to nearest even as c10::BFloat16 does, but it flushes
// denormal inputs to zero and keeps a NaN's sign and payload, where c10 keeps
// denormals and writes 0x7FC0 for every NaN. A vector of 16 with any such
// lane takes c10's integer rounding instead, so the bits written are always
// c10's (bf16_rounding_test and simd_levels_test check them).
//
// A bfloat16 source scaled by a power of two (doubling) needs no rounding
// where the products stay normal: groups of such values (and zeros) only
// have their exponents moved (bf16_exponent_shift.hpp).

#include <cstdint>

#include <c10/util/BFloat16.h>

namespace graft::detail {

// Whether the writes below may run: the CPU has AVX512_BF16, the active
// level (simd.hpp) is AVX-512 and allow_bf16_rounding() has not forbidden it.
bool has_bf16_rounding();

// Allows or forbids the instruction from now on (tests use it to run, on a
// CPU that has it, the writes of an AVX-512 CPU that has not); returns the
// previous setting.
bool allow_bf16_rounding(bool allowed);

// target[i] = bfloat16(float(source[i]) * scale) for i in [begin, end), with
// c10's rounding. scale 1 writes each value rounded (float32) or as it is
// (bfloat16). source may be target itself. Only when has_bf16_rounding().
void scale_to_bf16(const float* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end);
void scale_to_bf16(const c10::BFloat16* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end);

}  // namespace graft::detail
