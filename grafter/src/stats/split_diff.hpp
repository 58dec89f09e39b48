#pragma once
// The accumulators of the unchecked float64 loops (compare()'s in
// diff_pass_cpu.cpp and the measured write's in write_measure_cpu.cpp, for
// float64 and float16; float32 and bfloat16 sum in float_diff.hpp), held in
// register-sized parts: kParts vectors of kLanes / kParts lanes each, lane l
// being element l % kPartLanes of part l / kPartLanes. Below AVX-512, GCC 12
// keeps an 8-wide float64 vector in memory and lowers its selects lane by
// lane (the AVX2 loop took 6.8x the AVX-512 one's time for float32, 16x for
// bfloat16, when they summed here); vectors of the register width (4 lanes
// for AVX2, 2 for the baseline x86-64 target) stay in registers. Each lane
// does diff_lanes's arithmetic in the same order (add_diff_sums,
// take_block_max), so the parts, copied back into a diff_lanes (to_lanes),
// hold the same bits.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stats/accumulators.hpp"
#include "stats/half_lanes.hpp"
#include "stats/part_vectors.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

// Parts per level: one register's worth of float64 each.
template <simd kLevel>
inline constexpr int kDiffParts = kLevel == simd::avx512 ? 1 : kLevel == simd::avx2 ? 2 : 4;

// The six float64 diff sums of diff_lanes in kParts parts (float_diff.hpp
// keeps its float64 sums so too).
template <int kParts>
struct diff_sum_parts {
  static constexpr int kPartLanes = kLanes / kParts;
  using part_f64 = typename part_vectors<kPartLanes>::f64;
  static_assert(sizeof(part_f64[kParts]) == sizeof(lanes_f64), "the parts tile the lanes");

  part_f64 xx[kParts]{}, yy[kParts]{}, xy[kParts]{}, dd[kParts]{}, dx[kParts]{}, abs[kParts]{};

  // The sums into the lanes of a diff_lanes that holds none yet (lane order
  // is memory order).
  template <bool kFloat>
  void copy_into(diff_lanes<kFloat>& lanes) const {
    std::memcpy(&lanes.xx, xx, sizeof lanes.xx);
    std::memcpy(&lanes.yy, yy, sizeof lanes.yy);
    std::memcpy(&lanes.xy, xy, sizeof lanes.xy);
    std::memcpy(&lanes.dd, dd, sizeof lanes.dd);
    std::memcpy(&lanes.dx, dx, sizeof lanes.dx);
    std::memcpy(&lanes.abs, abs, sizeof lanes.abs);
  }
};

template <int kParts>
struct split_diff {
  static constexpr int kPartLanes = kLanes / kParts;
  using part_f64 = typename diff_sum_parts<kParts>::part_f64;
  using part_i64 = typename part_vectors<kPartLanes>::i64;

  diff_sum_parts<kParts> sums;
  part_f64 max[kParts];
  part_i64 max_index[kParts];

  split_diff() {
    for (int p = 0; p < kParts; ++p) {
      max[p] = part_f64{} - kInfinity;  // as diff_lanes starts
      max_index[p] = part_i64{} - 1;
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
          add_part<false>(p, load_part<kLevel, kPartLanes>(x + at), load_part<kLevel, kPartLanes>(y + at),
                          block_max[p]);
        }
      }
    }
  }

  // The block starting at element i had block_max (diff_lanes::take_block_max).
  GRAFT_HOT void take_block_max(const part_f64 (&block_max)[kParts], std::int64_t i) {
    for (int p = 0; p < kParts; ++p) detail::take_block_max(block_max[p], i, max[p], max_index[p]);
  }

  // The same accumulators as one diff_lanes (lane order is memory order).
  diff_lanes<false> to_lanes() const {
    diff_lanes<false> lanes;
    sums.copy_into(lanes);
    std::memcpy(&lanes.max, max, sizeof lanes.max);
    std::memcpy(&lanes.max_index, max_index, sizeof lanes.max_index);
    return lanes;
  }

  // Part p's lanes of one step of finite values a and b, for a loop that
  // computes its values (the measured write's) rather than loading them.
  template <bool kFuse>
  GRAFT_HOT void add_part(int p, part_f64 a, part_f64 b, part_f64& block_max) {
    const part_f64 abs_d =
        add_diff_sums<kFuse>(a, b, a - b, sums.xx[p], sums.yy[p], sums.xy[p], sums.dd[p], sums.dx[p], sums.abs[p]);
    block_max = abs_d > block_max ? abs_d : block_max;
  }
};

}  // namespace graft::detail
