#include "stats/bf16_rounding.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

#include "stats/accumulators.hpp"
#include "stats/simd.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wmaybe-uninitialized reports inside its own headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace graft::detail {
namespace {

template <typename Src>
void scale_scalar(const Src* source, c10::BFloat16* target, float scale, std::int64_t i, std::int64_t end) {
  for (; i < end; ++i) target[i] = c10::BFloat16(static_cast<float>(source[i]) * scale);
}

}  // namespace

#if defined(__x86_64__)

#define GRAFT_TARGET_AVX512_BF16 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx512bf16")))

namespace {

// The 16 values at p as float.
GRAFT_TARGET_AVX512_BF16 inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }

GRAFT_TARGET_AVX512_BF16 inline __m512 load16(const c10::BFloat16* p) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
}

// c10's rounding in integer arithmetic, as the other CPU loops do it
// (bf16_bits): NaN becomes 0x7FC0, anything else rounds to nearest even.
GRAFT_TARGET_AVX512_BF16 inline __m256i c10_rounding(__m512 f) {
  using u32x16 = std::uint32_t __attribute__((vector_size(64)));
  return _mm512_cvtepi32_epi16(reinterpret_cast<__m512i>(bf16_bits<u32x16>(f)));
}

constexpr int kQuietNan = 0x01, kDenormal = 0x20, kSignalingNan = 0x80;

GRAFT_TARGET_AVX512_BF16 inline __mmask16 needs_c10_rounding(__m512 f) {
  return _mm512_fpclass_ps_mask(f, kQuietNan | kDenormal | kSignalingNan);
}

// 32 rounded values, low then high: one instruction, or c10's arithmetic when
// a lane needs it.
GRAFT_TARGET_AVX512_BF16 inline __m512i to_bf16(__m512 low, __m512 high, bool c10_lanes) {
  if (c10_lanes) return _mm512_inserti64x4(_mm512_castsi256_si512(c10_rounding(low)), c10_rounding(high), 1);
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low));
}

// Values per group: every product of a group is formed (source read) before
// its first store, so source may be target, and one test of the NaN and
// denormal lanes covers the group. The test and its branch cost as much as
// the conversion, so testing 128 values at a time instead of 32 takes most
// of that cost off.
constexpr int kGroupVectors = 8;
constexpr std::int64_t kGroup = 16 * kGroupVectors;

template <typename Src>
GRAFT_TARGET_AVX512_BF16 GRAFT_HOT void scale_group(const Src* source, c10::BFloat16* target, __m512 factor) {
  __m512 products[kGroupVectors];
  __mmask16 c10_lanes = 0;
  for (int k = 0; k < kGroupVectors; ++k) {
    products[k] = _mm512_mul_ps(load16(source + 16 * k), factor);
    c10_lanes |= needs_c10_rounding(products[k]);
  }
  for (int k = 0; k < kGroupVectors; k += 2) {
    _mm512_storeu_si512(target + 16 * k, to_bf16(products[k], products[k + 1], c10_lanes != 0));
  }
}

// A bfloat16 times a power of two 2^k needs no rounding while the product
// stays a normal number: it adds k to the exponent field (and flips the sign
// for a negative scale), and a zero stays a zero of the product's sign: c10's
// bits exactly. That is 6 integer operations per 32 values (magnitude, range
// test in two, zero test, add, sign) where widening, multiplying, testing and
// rounding take 9; doubling 1 MiB of bfloat16 went from 34 to 29 us (Zen 4).
struct exponent_shift {
  std::uint16_t lowest;  // the smallest magnitude (bits without the sign) whose product is normal
  std::uint16_t span;    // the largest such magnitude, minus lowest
  std::uint16_t add;     // k in the exponent field, modulo 2^16
  std::uint16_t sign;    // 0x8000 for a negative scale
};

// The shift that scale is, when it is plus or minus a power of two whose
// products of some normal bfloat16 are normal.
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

// One group of kGroup values through the exponent, when every one of them is
// a zero or has a normal product; false (and nothing written) otherwise. All
// of the group is read before the first store, so source may be target.
GRAFT_TARGET_AVX512_BF16 GRAFT_HOT bool shift_group(const c10::BFloat16* source, c10::BFloat16* target,
                                                   const exponent_shift& shift) {
  constexpr int kWords = 32;
  constexpr int kVectors = kGroup / kWords;
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

template <typename Src>
GRAFT_TARGET_AVX512_BF16 void scale_range(const Src* source, c10::BFloat16* target, float scale,
                                          std::int64_t begin, std::int64_t end) {
  const __m512 factor = _mm512_set1_ps(scale);
  std::int64_t i = begin;
  std::optional<exponent_shift> shift;
  if constexpr (std::is_same_v<Src, c10::BFloat16>) shift = as_exponent_shift(scale);
  for (; i + kGroup <= end; i += kGroup) {
    if constexpr (std::is_same_v<Src, c10::BFloat16>) {
      if (shift && shift_group(source + i, target + i, *shift)) continue;
    }
    scale_group(source + i, target + i, factor);
  }
  for (; i + 32 <= end; i += 32) {
    const __m512 low = _mm512_mul_ps(load16(source + i), factor);
    const __m512 high = _mm512_mul_ps(load16(source + i + 16), factor);
    _mm512_storeu_si512(target + i, to_bf16(low, high, (needs_c10_rounding(low) | needs_c10_rounding(high)) != 0));
  }
  scale_scalar(source, target, scale, i, end);
}

}  // namespace

bool has_bf16_rounding() {
  static const bool supported = __builtin_cpu_supports("avx512bf16");
  return supported && active_simd() == simd::avx512;
}

#else

namespace {

template <typename Src>
void scale_range(const Src* source, c10::BFloat16* target, float scale, std::int64_t begin, std::int64_t end) {
  scale_scalar(source, target, scale, begin, end);
}

}  // namespace

bool has_bf16_rounding() { return false; }

#endif

void scale_to_bf16(const float* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end) {
  scale_range(source, target, scale, begin, end);
}

void scale_to_bf16(const c10::BFloat16* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end) {
  scale_range(source, target, scale, begin, end);
}

}  // namespace graft::detail
