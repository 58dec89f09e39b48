#include "stats/simd.hpp"

#include <algorithm>
#include <atomic>

namespace graft::detail {
namespace {

simd cpu_simd() {
#if defined(__x86_64__)
  // Both levels convert float16 with F16C (simd.hpp).
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("f16c");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
    return simd::avx512;
  }
  if (avx2) return simd::avx2;
#endif
  return simd::baseline;
}

std::atomic<simd>& cap() {
  static std::atomic<simd> value{simd::avx512};
  return value;
}

}  // namespace

simd active_simd() {
  static const simd supported = cpu_simd();
  return std::min(supported, cap().load(std::memory_order_relaxed));
}

simd limit_simd(simd level) { return cap().exchange(level); }

}  // namespace graft::detail
