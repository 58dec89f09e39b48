#include "stats/bf16_exponent_shift.hpp"

#include <algorithm>
#include <cmath>

#include "stats/simd.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wmaybe-uninitialized reports inside its own headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace graft::detail {

std::optional<exponent_shift> as_exponent_shift(float scale) {
  int exponent = 0;
  if (!std::isfinite(scale) || std::fabs(std::frexp(scale, &exponent)) != 0.5f) return std::nullopt;
  const int k = exponent - 1;  // scale = +-2^k
  constexpr int kMaxField = 254;  // of a finite value; the field is 1 to 254 for normals
  const int lowest_field = std::max(1, 1 - k);
  const int highest_field = std::min(kMaxField, kMaxField - k);
  if (lowest_field > highest_field) return std::nullopt;
  constexpr int kMantissaBits = 7;
  const int lowest = lowest_field << kMantissaBits;
  const int highest = (highest_field << kMantissaBits) | ((1 << kMantissaBits) - 1);
  return exponent_shift{static_cast<std::uint16_t>(lowest), static_cast<std::uint16_t>(highest - lowest),
                        static_cast<std::uint16_t>(k * (1 << kMantissaBits)),
                        static_cast<std::uint16_t>(scale < 0 ? 0x8000 : 0)};
}

#if defined(__x86_64__)

namespace {

// One group through the exponent when it shifts; false (and nothing
// written) otherwise.
GRAFT_TARGET_AVX512 GRAFT_HOT bool shift_group(const c10::BFloat16* source, c10::BFloat16* target,
                                              const exponent_shift& shift) {
  constexpr int kWords = 32;
  constexpr int kVectors = kShiftGroup / kWords;
  const __m512i magnitude_bits = _mm512_set1_epi16(0x7FFF);
  const __m512i lowest = _mm512_set1_epi16(static_cast<short>(shift.lowest));
  const __m512i span = _mm512_set1_epi16(static_cast<short>(shift.span));
  __m512i words[kVectors];
  __mmask32 normal[kVectors];
  __mmask32 covered = ~__mmask32{0};
  for (int v = 0; v < kVectors; ++v) {
    words[v] = _mm512_loadu_si512(source + kWords * v);
    const __m512i magnitude = _mm512_and_si512(words[v], magnitude_bits);
    normal[v] = _mm512_cmple_epu16_mask(_mm512_sub_epi16(magnitude, lowest), span);
    covered &= normal[v] | _mm512_testn_epi16_mask(words[v], magnitude_bits);
  }
  if (covered != ~__mmask32{0}) return false;
  const __m512i add = _mm512_set1_epi16(static_cast<short>(shift.add));
  const __m512i sign = _mm512_set1_epi16(static_cast<short>(shift.sign));
  for (int v = 0; v < kVectors; ++v) {
    const __m512i shifted = _mm512_mask_add_epi16(words[v], normal[v], words[v], add);
    _mm512_storeu_si512(target + kWords * v, _mm512_xor_si512(shifted, sign));
  }
  return true;
}

}  // namespace

GRAFT_TARGET_AVX512 std::int64_t shift_exponents(const c10::BFloat16* source, c10::BFloat16* target,
                                                 const exponent_shift& shift, std::int64_t begin,
                                                 std::int64_t end) {
  std::int64_t i = begin;
  while (i + kShiftGroup <= end && shift_group(source + i, target + i, shift)) i += kShiftGroup;
  return i;
}

#else

std::int64_t shift_exponents(const c10::BFloat16*, c10::BFloat16*, const exponent_shift&, std::int64_t begin,
                             std::int64_t) {
  return begin;
}

#endif

}  // namespace graft::detail
