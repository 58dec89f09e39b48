#pragma once
// Which instruction set the CPU passes run with. Each hot loop is compiled
// three times from one body: for the baseline x86-64 target, for AVX2 and for
// AVX-512 (function target attributes, so the library still runs on any
// x86-64), and picked once per pass from what this CPU supports. Every
// variant does the same arithmetic in the same order (8 float64 lanes, see
// accumulators.hpp; 16 float32 lanes, see float_diff.hpp) and the component
// is built with -ffp-contract=off, so no variant fuses a multiply-add that
// another rounds twice: the choice changes speed, never a result. (The
// float64 loops of the AVX-512 variants fuse exact products only, which round
// the same fused or not; the float32 sums fuse every product at every level,
// the baseline's with the C library's fmaf: intrinsic_ops.hpp.)

#include <cstdint>

// Hot helpers are inlined into each variant of a loop, so that they are
// compiled for its instruction set.
#define GRAFT_HOT inline __attribute__((always_inline))
// prefer-vector-width=512: without it GCC auto-vectorises the AVX-512 variant's
// plain loops (the unmeasured writes) at 256 bits. Both levels name F16C (the
// float16 conversions, half_lanes.hpp) and the AVX-512 one FMA too: GCC 12's
// avx512f implies neither, and a helper of the AVX2 level inlines into an
// AVX-512 loop only where the loop's target covers the helper's.
#if defined(__x86_64__)
#define GRAFT_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define GRAFT_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,fma,f16c,prefer-vector-width=512")))
#else
#define GRAFT_TARGET_AVX2
#define GRAFT_TARGET_AVX512
#endif

namespace graft::detail {

// avx2 stands for AVX2 with FMA and F16C (every CPU with AVX2 but a few has
// all three), avx512 for AVX-512 F/DQ/VL/BW with them.
enum class simd : std::uint8_t { baseline, avx2, avx512 };

// The best level this CPU runs (checked once), capped by limit_simd().
simd active_simd();

// Caps the level the passes use from now on (tests use it to run every
// variant on one machine); returns the previous cap.
simd limit_simd(simd cap);

// The variant of a loop for the active level.
template <typename Fn>
Fn pick_simd(Fn baseline, Fn avx2, Fn avx512) {
  switch (active_simd()) {
    case simd::avx512:
      return avx512;
    case simd::avx2:
      return avx2;
    case simd::baseline:
      break;
  }
  return baseline;
}

}  // namespace graft::detail
