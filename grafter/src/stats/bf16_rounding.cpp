#include "stats/bf16_rounding.hpp"

#include <atomic>
#include <optional>
#include <type_traits>

#include "stats/accumulators.hpp"
#include "stats/bf16_exponent_shift.hpp"
#include "stats/simd.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_*(),
// which -Wmaybe-uninitialized reports inside its own headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace graft::detail {
namespace {

std::atomic<bool>& bf16_rounding_allowed() {
  static std::atomic<bool> allowed{true};
  return allowed;
}

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

template <typename Src>
GRAFT_TARGET_AVX512_BF16 void scale_range(const Src* source, c10::BFloat16* target, float scale,
                                          std::int64_t begin, std::int64_t end) {
  const __m512 factor = _mm512_set1_ps(scale);
  std::int64_t i = begin;
  std::optional<exponent_shift> shift;
  if constexpr (std::is_same_v<Src, c10::BFloat16>) shift = as_exponent_shift(scale);
  for (; i + kGroup <= end; i += kGroup) {
    if constexpr (std::is_same_v<Src, c10::BFloat16>) {
      if (shift) i = shift_exponents(source, target, *shift, i, end);
      if (i + kGroup > end) break;
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
  return supported && bf16_rounding_allowed().load(std::memory_order_relaxed) && active_simd() == simd::avx512;
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

bool allow_bf16_rounding(bool allowed) { return bf16_rounding_allowed().exchange(allowed); }

void scale_to_bf16(const float* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end) {
  scale_range(source, target, scale, begin, end);
}

void scale_to_bf16(const c10::BFloat16* source, c10::BFloat16* target, float scale, std::int64_t begin,
                   std::int64_t end) {
  scale_range(source, target, scale, begin, end);
}

}  // namespace graft::detail
