#pragma once
// The accumulators of compare()'s unchecked loop (diff_pass_cpu.cpp), held
// in register-sized parts: kParts vectors of kLanes / kParts lanes each,
// lane l being element l % kPartLanes of part l / kPartLanes. Below AVX-512,
// GCC 12 keeps an 8-wide float64 vector in memory and lowers its selects
// lane by lane (the AVX2 loop took 6.8x the AVX-512 one's time for float32,
// 16x for bfloat16); vectors of the register width (4 lanes for AVX2, 2 for
// the baseline x86-64 target) stay in registers. Each lane does diff_lanes's arithmetic
// in the same order (add_diff_sums, take_block_max), so the parts, copied
// back into a diff_lanes (to_lanes), hold the same bits.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <c10/util/BFloat16.h>

#include "stats/accumulators.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

// Parts per level: one register's worth of float64 each.
template <simd kLevel>
inline constexpr int kDiffParts = kLevel == simd::avx512 ? 1 : kLevel == simd::avx2 ? 2 : 4;

// The vector types of a part of kWidth lanes (GCC 12 ignores a vector_size
// that depends on a template parameter, hence one specialisation each).
template <int kWidth>
struct part_vectors;

#define GRAFT_PART_VECTORS(kWidth)                                          \
  template <>                                                               \
  struct part_vectors<kWidth> {                                             \
    using f64 = double __attribute__((vector_size(8 * kWidth)));            \
    using i64 = std::int64_t __attribute__((vector_size(8 * kWidth)));      \
    using f32 = float __attribute__((vector_size(4 * kWidth)));             \
    using u32 = std::uint32_t __attribute__((vector_size(4 * kWidth)));     \
    using u16 = std::uint16_t __attribute__((vector_size(2 * kWidth)));     \
  };
GRAFT_PART_VECTORS(8)
GRAFT_PART_VECTORS(4)
GRAFT_PART_VECTORS(2)
#undef GRAFT_PART_VECTORS

template <int kParts>
struct split_diff {
  static constexpr int kPartLanes = kLanes / kParts;
  using part_f64 = typename part_vectors<kPartLanes>::f64;
  using part_i64 = typename part_vectors<kPartLanes>::i64;
  using part_f32 = typename part_vectors<kPartLanes>::f32;
  using part_u32 = typename part_vectors<kPartLanes>::u32;
  using part_u16 = typename part_vectors<kPartLanes>::u16;
  static_assert(sizeof(part_f64[kParts]) == sizeof(lanes_f64), "the parts tile the lanes");

  part_f64 xx[kParts]{}, yy[kParts]{}, xy[kParts]{}, dd[kParts]{}, dx[kParts]{}, abs[kParts]{};
  part_f64 max[kParts];
  part_i64 max_index[kParts];

  split_diff() {
    for (int p = 0; p < kParts; ++p) {
      max[p] = part_f64{} - kInfinity;  // as diff_lanes starts
      max_index[p] = part_i64{} - 1;
    }
  }

  // The kPartLanes values at p as float64; the AVX2 variants (4-lane parts)
  // convert float32 and bfloat16 with intrinsic_ops.hpp's instructions.
  template <simd kLevel, typename T>
  GRAFT_HOT static part_f64 load_part(const T* p) {
    constexpr bool kAvx2Part = kLevel == simd::avx2 && kPartLanes == 4;
    if constexpr (kAvx2Part && std::is_same_v<T, float>) {
      return widen_floats_avx2(p);
    } else if constexpr (kAvx2Part && std::is_same_v<T, c10::BFloat16>) {
      return widen_bfloat16s_avx2(p);
    } else if constexpr (std::is_same_v<T, double>) {
      part_f64 v;
      std::memcpy(&v, p, sizeof v);
      return v;
    } else if constexpr (std::is_same_v<T, float>) {
      part_f32 f;
      std::memcpy(&f, p, sizeof f);
      return __builtin_convertvector(f, part_f64);
    } else if constexpr (std::is_same_v<T, c10::BFloat16>) {
      part_u16 bits;
      std::memcpy(&bits, p, sizeof bits);
      const part_u32 wide = __builtin_convertvector(bits, part_u32) << 16;
      part_f32 f;
      std::memcpy(&f, &wide, sizeof f);
      return __builtin_convertvector(f, part_f64);
    } else {
      part_f64 v;
      for (int l = 0; l < kPartLanes; ++l) v[l] = static_cast<double>(p[l]);
      return v;
    }
  }

  // Two steps (2 * kLanes pairs from x and y) of finite values, their
  // largest differences per lane kept in block_max (as diff_lanes's
  // add_unchecked). One part loads the pair as whole steps (load_step_pair).
  template <simd kLevel, bool kFuse, typename T>
  GRAFT_HOT void add_step_pair(const T* x, const T* y, part_f64 (&block_max)[kParts]) {
    if constexpr (kParts == 1) {
      const step_pair a = load_step_pair<kLevel>(x);
      const step_pair b = load_step_pair<kLevel>(y);
      add_part<kFuse>(0, a.first, b.first, block_max[0]);
      add_part<kFuse>(0, a.second, b.second, block_max[0]);
    } else {
      static_assert(!kFuse, "only the AVX-512 variants fuse, with one part");
      for (int s = 0; s < 2; ++s) {
        for (int p = 0; p < kParts; ++p) {
          const std::int64_t at = s * kLanes + p * kPartLanes;
          add_part<false>(p, load_part<kLevel>(x + at), load_part<kLevel>(y + at), block_max[p]);
        }
      }
    }
  }

  // The block starting at element i had block_max (diff_lanes::take_block_max).
  GRAFT_HOT void take_block_max(const part_f64 (&block_max)[kParts], std::int64_t i) {
    for (int p = 0; p < kParts; ++p) detail::take_block_max(block_max[p], i, max[p], max_index[p]);
  }

  // The same accumulators as one diff_lanes (lane order is memory order).
  diff_lanes to_lanes() const {
    diff_lanes lanes;
    std::memcpy(&lanes.xx, xx, sizeof lanes.xx);
    std::memcpy(&lanes.yy, yy, sizeof lanes.yy);
    std::memcpy(&lanes.xy, xy, sizeof lanes.xy);
    std::memcpy(&lanes.dd, dd, sizeof lanes.dd);
    std::memcpy(&lanes.dx, dx, sizeof lanes.dx);
    std::memcpy(&lanes.abs, abs, sizeof lanes.abs);
    std::memcpy(&lanes.max, max, sizeof lanes.max);
    std::memcpy(&lanes.max_index, max_index, sizeof lanes.max_index);
    return lanes;
  }

 private:
  template <bool kFuse>
  GRAFT_HOT void add_part(int p, part_f64 a, part_f64 b, part_f64& block_max) {
    const part_f64 abs_d = add_diff_sums<kFuse>(a, b, xx[p], yy[p], xy[p], dd[p], dx[p], abs[p]);
    block_max = abs_d > block_max ? abs_d : block_max;
  }
};

}  // namespace graft::detail
