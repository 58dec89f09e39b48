#pragma once
// stats_lanes's accumulators for finite values (accumulators.hpp), held in
// register-sized parts as split_diff.hpp holds the diff sums: kParts vectors
// of kLanes / kParts lanes, lane l being element l % kPartLanes of part
// l / kPartLanes. The fast blocks of the measured write (both sides'
// statistics) and of describe() take them here: below AVX-512, GCC 12 keeps
// stats_lanes's 8-wide float64 vectors on the stack and takes their minimum
// and maximum lane by lane (docs/benchmarks.md, "Why the CPU loops look as
// they do"). Each lane does add_finite's arithmetic in the same order, so to_lanes
// gives a stats_lanes with the same bits.

#include <cstdint>
#include <cstring>

#include "stats/accumulators.hpp"
#include "stats/part_vectors.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

template <int kParts>
struct split_stats {
  static constexpr int kPartLanes = kLanes / kParts;
  using part_f64 = typename part_vectors<kPartLanes>::f64;
  static_assert(sizeof(part_f64[kParts]) == sizeof(lanes_f64), "the parts tile the lanes");

  part_f64 min[kParts], max[kParts], sum[kParts]{};

  split_stats() {
    for (int p = 0; p < kParts; ++p) {
      min[p] = part_f64{} + kInfinity;  // as stats_lanes starts
      max[p] = part_f64{} - kInfinity;
    }
  }

  // Part p's lanes of one step of finite values (stats_lanes::add_finite).
  GRAFT_HOT void add_part(int p, part_f64 v) {
    min[p] = v < min[p] ? v : min[p];
    max[p] = v > max[p] ? v : max[p];
    sum[p] += v;
  }

  // Two steps of finite values given as float (2 * kLanes in element
  // order), widened a part at a time: GCC 12 lowers the 16 float64 lanes of
  // a whole widened pair through the stack below AVX-512.
  template <simd kLevel>
  GRAFT_HOT void add_floats(pair_f32 f) {
    if constexpr (kParts == 1) {
      const step_pair d = widen_pair(f);
      add_part(0, d.first);
      add_part(0, d.second);
    } else {
      typename part_vectors<kPartLanes>::f32 pieces[2 * kParts];
      std::memcpy(pieces, &f, sizeof pieces);
      for (int q = 0; q < 2 * kParts; ++q) add_part(q % kParts, widen<kLevel, kPartLanes>(pieces[q]));
    }
  }

  // Two steps of finite values as float64.
  GRAFT_HOT void add_pair(const step_pair& v) {
    part_f64 parts[2 * kParts];
    std::memcpy(parts, &v, sizeof parts);
    for (int q = 0; q < 2 * kParts; ++q) add_part(q % kParts, parts[q]);
  }

  // The same accumulators as one stats_lanes (lane order is memory order),
  // after `steps` steps: every lane took one value a step.
  stats_lanes to_lanes(std::int64_t steps) const {
    stats_lanes lanes;
    std::memcpy(&lanes.min, min, sizeof lanes.min);
    std::memcpy(&lanes.max, max, sizeof lanes.max);
    std::memcpy(&lanes.sum, sum, sizeof lanes.sum);
    lanes.finite = lanes_i64{} + steps;
    return lanes;
  }
};

}  // namespace graft::detail
