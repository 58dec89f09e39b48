#pragma once
// The diff sums of float32 and bfloat16 values (kFloatDifference), taken in
// float32 where float32 can hold them.
//
// Float64 sums cost a conversion per value and run at half the vector width:
// compare() of float32 tensors took 2.7 times a plain read of both. Here the
// five sums and the sum of |x - y| run in float32, 16 lanes wide, with every
// product fused (one rounding). A step covers 16 float32 values, one per
// lane, or 32 bfloat16 values, two per lane: lane l takes a step's elements
// kLaneValues * l + j in the order of j. (A bfloat16 pair is a 32-bit word
// whose halves widen to float32 with a shift and a mask; element order
// costs a shuffle more per 16 values, in a loop bound by its instruction
// count.) At the end of each block of kFloatBlock elements the sums are added
// to float64 sums (float32 lane l into float64 lane l % 8, lane l before lane
// l + 8) and start again from zero. A float32 sum so holds at most 32 terms,
// each rounded once: every sum of a range stays within about 2e-6 of its
// value, relative (and usually far closer), where float64 sums would be
// within 1e-15; rel_diff and cosine follow the sums (metrics.hpp). The
// range's float64 sums then go into a diff_lanes (sums_into), which takes the
// rest of the range, fewer values than a block, in float64.
//
// A range whose values float32 cannot sum this way goes the float64 way of
// its caller instead (fits_float): a NaN or Inf, squares or sums beyond
// float32's range, and sums so small (below kFloatSumFloor) that squares lost
// to underflow could matter. A side whose values are all zero sums exactly and
// stays.
//
// The maximum is kept as split_diff.hpp keeps it: per lane, the largest
// |difference| of each block and the block where the lane's maximum first
// appeared; find_max then searches the blocks of the lanes that hold the
// largest for its first element.
//
// kParts splits the 16 lanes into register-sized parts (16 lanes for
// AVX-512, 8 for AVX2, 4 for the baseline x86-64 target) that do the same
// arithmetic in the same order, so that every level gives the same bits.
// (AVX2 runs a part's 8 lanes through a block at FMA latency, not
// throughput: two parts at a time would need more than its 16 registers.)

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <c10/util/BFloat16.h>

#include "stats/accumulators.hpp"
#include "stats/intrinsic_ops.hpp"
#include "stats/part_vectors.hpp"
#include "stats/simd.hpp"
#include "stats/split_diff.hpp"

namespace graft::detail {

inline constexpr int kFloatLanes = 16;
inline constexpr int kFloatBlock = 512;
static_assert(kChunk % kFloatBlock == 0, "chunks start on a float block boundary");
static_assert(kFloatLanes == 2 * kLanes, "a float32 lane flushes into float64 lane l % kLanes");

// Sums of a range below this go the float64 way: a float32 square below
// 2^-126 loses precision to underflow (at most 2^-150 each with gradual
// underflow, 2^-126 where a host flushes denormals to zero), so a range's
// squares lose at most kChunk * 2^-126 = 2^-111, which this floor keeps
// below 2^-21 of any sum that stays.
inline constexpr double kFloatSumFloor = 0x1p-90;

// 16 float32 lanes (one AVX-512 register): a step pair's values.
using float_lanes = pair_f32;
static_assert(sizeof(float_lanes) == kFloatLanes * sizeof(float), "16 float32 lanes");

// Values of T per lane and step: a float32 fills a lane, two bfloat16 share one.
template <typename T>
inline constexpr int kLaneValues = static_cast<int>(sizeof(float) / sizeof(T));

// Elements per step and steps per block: every lane takes 32 terms a block.
template <typename T>
inline constexpr int kFloatStep = kFloatLanes * kLaneValues<T>;
template <typename T>
inline constexpr int kFloatBlockSteps = kFloatBlock / kFloatStep<T>;

// Parts per level: one register's worth of float32 each.
template <simd kLevel>
inline constexpr int kFloatParts = kLevel == simd::avx512 ? 1 : kLevel == simd::avx2 ? 2 : 4;

// The values of kWidth lanes at p (T float or bfloat16) as float32: value j
// of lane l is element kLaneValues * l + j.
template <int kWidth, typename T>
using lane_values = std::array<typename part_vectors<kWidth>::f32, kLaneValues<T>>;

template <int kWidth, typename T>
GRAFT_HOT lane_values<kWidth, T> load_float_part(const T* p) {
  using u32 = typename part_vectors<kWidth>::u32;
  u32 words;
  std::memcpy(&words, p, sizeof words);
  lane_values<kWidth, T> values;
  if constexpr (std::is_same_v<T, float>) {
    std::memcpy(&values[0], &words, sizeof words);
  } else {
    static_assert(std::is_same_v<T, c10::BFloat16>, "float32 or bfloat16 values");
    // A bfloat16 is a float's high half; element 2l is word l's low half.
    const u32 first = words << 16;
    const u32 second = words & 0xffff0000u;
    std::memcpy(&values[0], &first, sizeof first);
    std::memcpy(&values[1], &second, sizeof second);
  }
  return values;
}

// A bfloat16 step's lane values from its 32 elements in order (first: 0-15,
// second: 16-31), as load_float_part gives them. Below AVX-512 in 8-lane
// halves: GCC 12 moves the values of a 16-lane shuffle one at a time there.
template <simd kLevel>
GRAFT_HOT std::array<pair_f32, 2> deinterleave(pair_f32 first, pair_f32 second) {
  if constexpr (kLevel == simd::avx512) {
    return {__builtin_shufflevector(first, second, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
            __builtin_shufflevector(first, second, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)};
  } else {
    using half = typename part_vectors<kFloatLanes / 2>::f32;
    half in[4], even[2], odd[2];
    std::memcpy(&in[0], &first, sizeof first);
    std::memcpy(&in[2], &second, sizeof second);
    for (int h = 0; h < 2; ++h) {
      even[h] = __builtin_shufflevector(in[2 * h], in[2 * h + 1], 0, 2, 4, 6, 8, 10, 12, 14);
      odd[h] = __builtin_shufflevector(in[2 * h], in[2 * h + 1], 1, 3, 5, 7, 9, 11, 13, 15);
    }
    std::array<pair_f32, 2> out;
    std::memcpy(&out[0], even, sizeof even);
    std::memcpy(&out[1], odd, sizeof odd);
    return out;
  }
}

// Whether every value of T in [begin, end) is zero (either sign).
template <typename T>
bool all_zero(const T* p, std::int64_t begin, std::int64_t end) {
  using bits_t = std::conditional_t<std::is_same_v<T, float>, std::uint32_t, std::uint16_t>;
  static_assert(sizeof(bits_t) == sizeof(T), "float32 or bfloat16 values");
  constexpr bits_t kMagnitude = std::numeric_limits<bits_t>::max() >> 1;
  bits_t seen = 0;
  for (std::int64_t i = begin; i < end; ++i) {
    bits_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    seen |= bits;
  }
  return (seen & kMagnitude) == 0;
}

template <int kParts>
struct float_diff {
  static constexpr int kPartLanes = kFloatLanes / kParts;
  using part = typename part_vectors<kPartLanes>::f32;
  using part_offsets = typename part_vectors<kPartLanes>::i32;
  static_assert(sizeof(part[kParts]) == sizeof(float_lanes), "the parts tile the lanes");
  // The float64 sums, in kParts register-sized parts too (GCC 12 keeps an
  // 8-wide float64 vector in memory below AVX-512): half a float32 part's
  // lanes each.
  using wide_part = typename diff_sum_parts<kParts>::part_f64;
  static_assert(sizeof(wide_part) == sizeof(part), "a float64 part holds half a float32 part's lanes");

  diff_sum_parts<kParts> sums;
  // Each lane's largest |difference| so far and the offset (from the range's
  // start) of the block where it first appeared; -1: none yet.
  part max[kParts];
  part_offsets max_block[kParts];

  float_diff() {
    for (int p = 0; p < kParts; ++p) {
      max[p] = part{} - std::numeric_limits<float>::infinity();
      max_block[p] = part_offsets{} - 1;
    }
  }

  // Adds the kFloatBlock pairs at x and y (float32 or bfloat16 values), the
  // block at `offset` from the range's start: its maxima join the running
  // ones, its sums the float64 ones. Any values: a NaN or Inf leaves the sums
  // non-finite, and fits_float says no. One part at a time through the whole
  // block, so that a part's accumulators stay in registers (the 16 float32
  // lanes of all of them do not fit AVX2's 16 registers, docs/benchmarks.md);
  // each lane still adds its elements in their order, as add_step does.
  template <typename T>
  GRAFT_HOT void add_block(const T* x, const T* y, std::int32_t offset) {
    for (int p = 0; p < kParts; ++p) {
      part_sums block;
      for (int s = 0; s < kFloatBlockSteps<T>; ++s) {
        const int at = s * kFloatStep<T> + p * kPartLanes * kLaneValues<T>;
        const lane_values<kPartLanes, T> a = load_float_part<kPartLanes>(x + at);
        const lane_values<kPartLanes, T> b = load_float_part<kPartLanes>(y + at);
        for (int j = 0; j < kLaneValues<T>; ++j) block.add(a[j], b[j]);
      }
      end_part(p, block, offset);
    }
  }

  // The same block 16 pairs at a time, for a loop that has the values in
  // registers (the fused write's): kFloatBlock / kFloatLanes calls to
  // add_step with each lane's values in add_block's order (for bfloat16, a
  // step's even elements, then its odd ones: deinterleave), then end_block.
  GRAFT_HOT void add_step(float_lanes a, float_lanes b) {
    part ap[kParts], bp[kParts];
    std::memcpy(ap, &a, sizeof ap);
    std::memcpy(bp, &b, sizeof bp);
    for (int p = 0; p < kParts; ++p) step_sums_[p].add(ap[p], bp[p]);
  }

  GRAFT_HOT void end_block(std::int32_t offset) {
    for (int p = 0; p < kParts; ++p) {
      end_part(p, step_sums_[p], offset);
      step_sums_[p] = part_sums{};
    }
  }

  // The float64 sums, into the lanes of a diff_lanes that holds none yet.
  template <bool kFloat>
  void sums_into(diff_lanes<kFloat>& lanes) const {
    sums.copy_into(lanes);
  }

  // Whether lanes, holding the sums of a range's float32 blocks (sums_into)
  // and nothing else, hold what float64 sums would to float32's precision:
  // all finite, and each side's and the difference's squares summing to
  // kFloatSumFloor or more, or to exactly zero from values that are zero
  // (is_zero_x / is_zero_y: whether a side's values over the range are).
  template <bool kFloat, typename IsZeroX, typename IsZeroY>
  static bool fits_float(const diff_lanes<kFloat>& lanes, IsZeroX is_zero_x, IsZeroY is_zero_y) {
    if (!all_finite(lanes.xx + lanes.yy + lanes.xy, lanes.dd + lanes.dx, lanes.abs)) return false;
    const auto side_fits = [](double sum, auto is_zero) {
      return sum >= kFloatSumFloor || (sum == 0 && is_zero());
    };
    const double abs_sum = total(lanes.abs);
    return side_fits(total(lanes.xx), is_zero_x) && side_fits(total(lanes.yy), is_zero_y) &&
           (total(lanes.dd) >= kFloatSumFloor || abs_sum == 0);
  }

  // Turns the blocks into the range's largest |difference| and its first
  // element, merged into into's maximum (as into's lane 0). Only the lanes
  // whose maximum is the largest are searched, each in its block: a step at
  // a time for the element of the lane's first maximum (searching every
  // lane took a tenth of compare()'s time). abs_difference(k) gives element
  // k's float32 |difference|; T: the values' type.
  template <typename T, bool kFloat, typename AbsDifference>
  void find_max(std::int64_t begin, AbsDifference abs_difference, diff_lanes<kFloat>& into) const {
    float maxima[kFloatLanes];
    std::int32_t blocks[kFloatLanes];
    std::memcpy(maxima, max, sizeof maxima);
    std::memcpy(blocks, max_block, sizeof blocks);
    float largest = -std::numeric_limits<float>::infinity();
    for (int l = 0; l < kFloatLanes; ++l) {
      if (blocks[l] >= 0 && maxima[l] > largest) largest = maxima[l];
    }
    std::int64_t index = -1;
    for (int l = 0; l < kFloatLanes; ++l) {
      if (blocks[l] < 0 || maxima[l] != largest) continue;
      const std::int64_t lane_start = begin + blocks[l] + l * kLaneValues<T>;
      const std::int64_t found = first_element<T>(lane_start, largest, abs_difference);
      if (found >= 0 && (index < 0 || found < index)) index = found;
    }
    if (index < 0) return;
    const double value = largest;
    if (value > into.max[0] || (value == into.max[0] && index < into.max_index[0])) {
      into.max[0] = value;
      into.max_index[0] = index;
    }
  }

 private:
  // One part's float32 sums over a block, and its largest |difference|.
  struct part_sums {
    part xx{}, yy{}, xy{}, dd{}, dx{}, abs{};
    part max = part{} - std::numeric_limits<float>::infinity();

    GRAFT_HOT void add(part a, part b) {
      const part d = a - b;
      xx = fused_multiply_add(a, a, xx);
      yy = fused_multiply_add(b, b, yy);
      xy = fused_multiply_add(a, b, xy);
      dd = fused_multiply_add(d, d, dd);
      dx = fused_multiply_add(d, a, dx);
      const part abs_d = abs_lanes(d);
      abs += abs_d;
      max = abs_d > max ? abs_d : max;
    }
  };

  part_sums step_sums_[kParts];

  // The first of a lane's elements in a block (lane_start: its first) whose
  // |difference| is `value`, which one of them has.
  template <typename T, typename AbsDifference>
  static std::int64_t first_element(std::int64_t lane_start, float value, AbsDifference abs_difference) {
    for (int s = 0; s < kFloatBlockSteps<T>; ++s) {
      for (int j = 0; j < kLaneValues<T>; ++j) {
        const std::int64_t k = lane_start + s * kFloatStep<T> + j;
        if (abs_difference(k) == value) return k;
      }
    }
    return -1;
  }

  // Part p of the block at `offset`: its sums into the float64 ones, its
  // maxima into the running ones.
  GRAFT_HOT void end_part(int p, const part_sums& block, std::int32_t offset) {
    flush(p, block.xx, sums.xx);
    flush(p, block.yy, sums.yy);
    flush(p, block.xy, sums.xy);
    flush(p, block.dd, sums.dd);
    flush(p, block.dx, sums.dx);
    flush(p, block.abs, sums.abs);
    const auto above = block.max > max[p];
    max[p] = above ? block.max : max[p];
    max_block[p] = above ? part_offsets{} + offset : max_block[p];
  }

  // Part p of a block's float32 sums into the float64 ones: float32 lane l
  // into float64 lane l % 8, lane l before lane l + 8 (part p's low half
  // goes to wide part 2p % kParts, its high half to the next).
  GRAFT_HOT static void flush(int p, part block_sums, wide_part (&into)[kParts]) {
    // The whole part at once: GCC 12 widens half a part (8 floats with
    // AVX-512) in 4-wide pieces joined by shuffles (see step_pair,
    // accumulators.hpp).
    const auto wide = __builtin_convertvector(block_sums, typename part_vectors<kPartLanes>::f64);
    wide_part halves[2];
    std::memcpy(halves, &wide, sizeof halves);
    for (int h = 0; h < 2; ++h) into[(2 * p + h) % kParts] += halves[h];
  }

  static double total(lanes_f64 lanes) {
    double sum = 0;
    for (int l = 0; l < kLanes; ++l) sum += lanes[l];
    return sum;
  }
};

}  // namespace graft::detail
