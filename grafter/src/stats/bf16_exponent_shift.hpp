#pragma once
// A bfloat16 times a power of two 2^k needs no rounding while the product
// stays a normal number: it adds k to the exponent field (and flips the sign
// for a negative scale), and a zero stays a zero of the product's sign:
// c10's bits exactly. That is 6 integer operations per 32 values (magnitude,
// range test in two, zero test, add, sign) where widening, multiplying,
// testing and rounding take 9 with AVX512_BF16's rounding instruction, and
// more with c10's integer rounding on a CPU without it (docs/benchmarks.md,
// "Why the CPU loops look as they do").
//
// Only AVX-512 (F and BW) instructions: it runs at the AVX-512 level with or
// without AVX512_BF16.

#include <cstdint>
#include <optional>

#include <c10/util/BFloat16.h>

namespace graft::detail {

struct exponent_shift {
  std::uint16_t lowest;  // the smallest magnitude (bits without the sign) whose product is normal
  std::uint16_t span;    // the largest such magnitude, minus lowest
  std::uint16_t add;     // k in the exponent field, modulo 2^16
  std::uint16_t sign;    // 0x8000 for a negative scale
};

// The shift that scale is, when it is plus or minus a power of two whose
// products of some normal bfloat16 are normal.
std::optional<exponent_shift> as_exponent_shift(float scale);

// Values per group: a group shifts only when every one of its values is a
// zero or has a normal product, and all of it is read before its first
// store, so source may be target.
inline constexpr std::int64_t kShiftGroup = 128;

// target[i] = source[i] * scale for the whole groups from begin on, as long
// as each group shifts; returns where it stopped: at the first group that
// does not shift, or where fewer than kShiftGroup values are left. Nothing
// from there on is written. Only at the AVX-512 level (simd.hpp).
std::int64_t shift_exponents(const c10::BFloat16* source, c10::BFloat16* target, const exponent_shift& shift,
                             std::int64_t begin, std::int64_t end);

}  // namespace graft::detail
