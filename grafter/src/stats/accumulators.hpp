#pragma once
// The per-element arithmetic of the CPU passes, shared by compare(),
// describe() and the fused write+measure pass, so that all of them give bit
// for bit the same results for the same values.
//
// Within a chunk, element i goes to lane i % kLanes: each lane has its own
// float64 accumulators, held as one 8-wide vector (GCC/Clang vector
// extensions, lowered to whatever SIMD the function is compiled for), so the
// additions of neighbouring elements are independent while the order of
// every sum stays fixed. Lanes fold in lane order at the end of the chunk,
// chunks in chunk order (chunked.hpp): results do not depend on the thread
// count or the instruction set.
//
// Each step of kLanes elements takes the fast path (no NaN/Inf tests) when
// all its values are finite, else the careful path (counts, masks;
// range_driver.hpp walks a range so); both do the same arithmetic on finite
// values, so the path taken never shows in a result. (The diff of float32
// and bfloat16 values sums in float32 where it can instead, float_diff.hpp:
// there a chunk's result depends on whether its values fit float32, which
// its values alone decide.)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <c10/util/BFloat16.h>

#include <graft/metrics.hpp>

#include "stats/intrinsic_ops.hpp"
#include "stats/chunked.hpp"
#include "stats/half_lanes.hpp"
#include "stats/part_vectors.hpp"
#include "stats/partials.hpp"
#include "stats/passes.hpp"
#include "stats/simd.hpp"

namespace graft::detail {

inline constexpr int kLanes = 8;  // the lane index vectors below spell out 8 lanes
static_assert(kChunk % kLanes == 0, "chunks start on a lane boundary");

using lanes_f64 = double __attribute__((vector_size(8 * kLanes)));
using lanes_i64 = std::int64_t __attribute__((vector_size(8 * kLanes)));
using lanes_f32 = float __attribute__((vector_size(4 * kLanes)));

// A NaN difference wins over any number (as torch.max); among equals the
// earlier index stays, so the index is the first occurrence.
inline bool beats(double candidate, double current) {
  return candidate > current || (std::isnan(candidate) && !std::isnan(current));
}

inline void combine(diff_partial& into, const diff_partial& next) {
  into.sum_xx += next.sum_xx;
  into.sum_yy += next.sum_yy;
  into.sum_xy += next.sum_xy;
  into.sum_dd += next.sum_dd;
  into.sum_dx += next.sum_dx;
  into.sum_abs += next.sum_abs;
  if (beats(next.max_abs, into.max_abs)) {
    into.max_abs = next.max_abs;
    into.max_abs_index = next.max_abs_index;
  }
  into.x_nan += next.x_nan;
  into.x_inf += next.x_inf;
  into.y_nan += next.y_nan;
  into.y_inf += next.y_inf;
}

inline void combine(stats_partial& into, const stats_partial& next) {
  into.nan_count += next.nan_count;
  into.inf_count += next.inf_count;
  into.finite_count += next.finite_count;
  into.min = std::min(into.min, next.min);
  into.max = std::max(into.max, next.max);
  into.sum += next.sum;
}

GRAFT_HOT lanes_f64 splat(double v) { return lanes_f64{} + v; }

// |v| per lane, for a float64 or float32 vector of any width (V).
template <typename V>
GRAFT_HOT V abs_lanes(V v) {
  decltype(v < v) bits;  // the integer vector of V's lane size and width
  std::memcpy(&bits, &v, sizeof bits);
  bits &= std::numeric_limits<std::remove_reference_t<decltype(bits[0])>>::max();
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Whether no lane of a probe is NaN. A probe sums x * 0 over values: NaN
// exactly when one of them is NaN or +-Inf (x * 0 is NaN for those, and a NaN
// survives the sum).
GRAFT_HOT bool probe_clean(lanes_f64 probe) {
  const lanes_i64 bad = probe != probe;
  using half_i64 = std::int64_t __attribute__((vector_size(4 * kLanes)));
  using quarter_i64 = std::int64_t __attribute__((vector_size(2 * kLanes)));
  const half_i64 h = __builtin_shufflevector(bad, bad, 0, 1, 2, 3) | __builtin_shufflevector(bad, bad, 4, 5, 6, 7);
  const quarter_i64 q = __builtin_shufflevector(h, h, 0, 1) | __builtin_shufflevector(h, h, 2, 3);
  return (q[0] | q[1]) == 0;
}

// True when every lane of every argument is finite.
GRAFT_HOT bool all_finite(lanes_f64 a, lanes_f64 b, lanes_f64 c) {
  return probe_clean(a * 0.0 + b * 0.0 + c * 0.0);
}

// The loops test finiteness once per block of kBlockSteps steps: the test's
// horizontal reduction costs more than a step's arithmetic. A block with a
// non-finite value goes step by step, each step fast or careful as before.
inline constexpr int kBlockSteps = 4;
inline constexpr int kBlock = kBlockSteps * kLanes;
static_assert(kChunk % kBlock == 0, "chunks start on a block boundary");
static_assert(kBlockSteps % 2 == 0, "blocks load their steps in pairs (load_step_pair)");

// The unchecked loops (no NaN/Inf tests at all) track the maximum per block
// of kMaxBlockSteps steps: one index update per block, and find_max_elements
// searches one block per lane at the end of a range. Together with the FMA
// sum of |a - b| (add_diff_sums) it made the float64 loops faster; either
// change alone did not (docs/benchmarks.md, "Why the CPU loops look as they
// do").
inline constexpr int kMaxBlockSteps = 32;
inline constexpr int kMaxBlock = kMaxBlockSteps * kLanes;
static_assert(kChunk % kMaxBlock == 0, "chunks start on a max block boundary");
static_assert(kMaxBlockSteps % 2 == 0, "max blocks load their steps in pairs (load_step_pair)");

// The bfloat16 bits of float lanes F, each in the low half of a U32 lane
// (vectors of any width), as c10::BFloat16 rounds them (to nearest even; NaN
// becomes 0x7FC0). A bfloat16's float is its bits shifted up by 16.
template <typename U32, typename F>
GRAFT_HOT U32 bf16_bits(F f) {
  U32 u;
  std::memcpy(&u, &f, sizeof u);
  const U32 rounded = (u + (((u >> 16) & 1u) + 0x7FFFu)) >> 16;
  const U32 nan = reinterpret_cast<U32>(f != f);
  return (nan & 0x7FC0u) | (~nan & rounded);
}

// float32, bfloat16 and float16 load as whole vectors of float (their opmath
// type; float16 with F16C above the baseline level, half_lanes.hpp).
template <typename T>
inline constexpr bool kVectorised =
    std::is_same_v<T, float> || std::is_same_v<T, c10::BFloat16> || std::is_same_v<T, c10::Half>;

// Whether the passes take x - y of T in float32, as float32 arithmetic
// (PyTorch's for float32, its opmath for bfloat16) computes it: then every
// product of the diff sums is exact in float64, and the float32 sums of
// float_diff.hpp can stand in for float64 ones. Not float16, which sums in
// float64 (its differences are exact there).
template <typename T>
inline constexpr bool kFloatDifference = std::is_same_v<T, float> || std::is_same_v<T, c10::BFloat16>;

// a - b per lane; kFloat: a and b hold float32 values, and the difference
// is rounded to float32 (exactly float32's a - b).
template <bool kFloat>
GRAFT_HOT lanes_f64 difference(lanes_f64 a, lanes_f64 b) {
  if constexpr (kFloat) {
    return __builtin_convertvector(__builtin_convertvector(a, lanes_f32) - __builtin_convertvector(b, lanes_f32),
                                   lanes_f64);
  } else {
    return a - b;
  }
}

template <bool kFloat>
GRAFT_HOT double difference(double a, double b) {
  if constexpr (kFloat) {
    return static_cast<double>(static_cast<float>(a) - static_cast<float>(b));
  } else {
    return a - b;
  }
}

// The loaders below take the level of the loop they serve (simd.hpp), which
// decides how float16 widens (half_lanes.hpp), and a width: kLanes for a
// step, 2 * kLanes for a step pair, or a register-sized part (part_vectors.hpp).

// Two steps' values at a time. The loops load steps in pairs because GCC 12
// widens 8 floats to 8 doubles in 4-wide halves joined by shuffles, but 16
// floats to 16 doubles as two whole 8-wide conversions.
using pair_f32 = float __attribute__((vector_size(8 * kLanes)));

struct step_pair {
  lanes_f64 first, second;
};

// The kWidth values at p as float; T is kVectorised.
template <simd kLevel, int kWidth, typename T>
GRAFT_HOT typename part_vectors<kWidth>::f32 load_floats(const T* p) {
  using u16 = typename part_vectors<kWidth>::u16;
  typename part_vectors<kWidth>::f32 f;
  if constexpr (std::is_same_v<T, float>) {
    std::memcpy(&f, p, sizeof f);
  } else if constexpr (std::is_same_v<T, c10::Half>) {
    f = half_to_float<kLevel, kWidth>(p);
  } else if constexpr (kWidth == 2 * kLanes && kLevel == simd::avx512) {
    // Each bfloat16 becomes the high half of a float: interleaving the bits
    // with zeros is one shuffle (a widening conversion and a shift take four
    // instructions in GCC 12's lowering). Not below AVX-512, where GCC 12
    // does the shuffle a value at a time through the stack.
    using wide_u16 = std::uint16_t __attribute__((vector_size(8 * kLanes)));
    u16 bits;
    std::memcpy(&bits, p, sizeof bits);
    const wide_u16 wide = __builtin_shufflevector(bits, u16{}, 16, 0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16,
                                                  7, 16, 8, 16, 9, 16, 10, 16, 11, 16, 12, 16, 13, 16, 14, 16, 15);
    std::memcpy(&f, &wide, sizeof f);
  } else {
    u16 bits;
    std::memcpy(&bits, p, sizeof bits);
    const auto wide = __builtin_convertvector(bits, typename part_vectors<kWidth>::u32) << 16;
    std::memcpy(&f, &wide, sizeof f);
  }
  return f;
}

// kWidth float lanes as float64. GCC 12 converts 4 floats as two halves
// joined by a shuffle: the AVX2 level's parts take the one instruction.
template <simd kLevel, int kWidth>
GRAFT_HOT typename part_vectors<kWidth>::f64 widen(typename part_vectors<kWidth>::f32 f) {
  if constexpr (kWidth == 4 && kLevel != simd::baseline) {
    return widen_f32x4(f);
  } else {
    return __builtin_convertvector(f, typename part_vectors<kWidth>::f64);
  }
}

// The kWidth values at p as float64: whole vectors for float64 and the
// kVectorised dtypes, element by element for the rest.
template <simd kLevel, int kWidth, typename T>
GRAFT_HOT typename part_vectors<kWidth>::f64 load_part(const T* p) {
  typename part_vectors<kWidth>::f64 v;
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(&v, p, sizeof v);
  } else if constexpr (kVectorised<T>) {
    v = widen<kLevel, kWidth>(load_floats<kLevel, kWidth>(p));
  } else {
    for (int l = 0; l < kWidth; ++l) v[l] = static_cast<double>(p[l]);
  }
  return v;
}

// One step's values at p as float64.
template <simd kLevel, typename T>
GRAFT_HOT lanes_f64 load_lanes(const T* p) {
  return load_part<kLevel, kLanes>(p);
}

// Two steps of float as float64: the first step's lanes and the second's.
GRAFT_HOT step_pair widen_pair(pair_f32 f) {
  using pair_f64 = double __attribute__((vector_size(16 * kLanes)));
  const pair_f64 d = __builtin_convertvector(f, pair_f64);
  return {__builtin_shufflevector(d, d, 0, 1, 2, 3, 4, 5, 6, 7),
          __builtin_shufflevector(d, d, 8, 9, 10, 11, 12, 13, 14, 15)};
}

// Two steps' values (2 * kLanes from p) as float64.
template <simd kLevel, typename T>
GRAFT_HOT step_pair load_step_pair(const T* p) {
  if constexpr (kVectorised<T>) {
    return widen_pair(load_floats<kLevel, 2 * kLanes>(p));
  } else {
    return {load_lanes<kLevel>(p), load_lanes<kLevel>(p + kLanes)};
  }
}

// Whether the product of any two values of T is exact in float64 (their
// significands together fit in its 53 bits): then a fused multiply-add rounds
// exactly as a multiply and an add do, and may stand in for them.
template <typename T>
inline constexpr bool kExactProducts =
    std::is_same_v<T, float> || std::is_same_v<T, c10::BFloat16> || std::is_same_v<T, c10::Half>;

// Whether the loops of variant kLevel fuse the products of T: the AVX-512
// variants do, for exact products.
template <simd kLevel, typename T>
inline constexpr bool kFuseProducts = kLevel == simd::avx512 && kExactProducts<T>;

// The six diff sums of one step's pairs a, b (float64 vectors of any width
// V, one lane per element) whose differences are d; returns |d|. kFuse (only
// in the AVX-512 variants, see kFuseProducts): a and b come from a dtype with
// exact products, which then go into fused multiply-adds with the same bits.
// d * d and d * a are not always exact and are never fused. The sum of |d|
// goes through a fused multiply-add too, as |d| * 1 (exact): on CPUs whose
// adds share pipes with the float conversions (AMD Zen 4) it moves work to
// the FMA pipes, with the bits of a plain add.
template <bool kFuse, typename V>
GRAFT_HOT V add_diff_sums(V a, V b, V d, V& xx, V& yy, V& xy, V& dd, V& dx, V& abs) {
  const V abs_d = abs_lanes(d);
  if constexpr (kFuse) {
    xx = fused_multiply_add(a, a, xx);
    yy = fused_multiply_add(b, b, yy);
    xy = fused_multiply_add(a, b, xy);
    abs = fused_multiply_add(abs_d, V{} + 1.0, abs);
  } else {
    xx += a * a;
    yy += b * b;
    xy += a * b;
    abs += abs_d;
  }
  dd += d * d;
  dx += d * a;
  return abs_d;
}

// The unchecked loops' maximum (vectors of any width V): a block of steps
// keeps the largest |difference| per lane in block_max; a lane whose running
// max the block's exceeds remembers the block's first element, block.
template <typename V>
GRAFT_HOT void take_block_max(V block_max, std::int64_t block, V& max, decltype(max < max)& max_index) {
  const auto above = block_max > max;
  max = above ? block_max : max;
  max_index = above ? decltype(above){} + block : max_index;
}

GRAFT_HOT lanes_i64 is_nan(lanes_f64 v) { return v != v; }
GRAFT_HOT lanes_i64 is_inf(lanes_f64 v) { return abs_lanes(v) == kInfinity; }

// Diff accumulators of one chunk, per lane. The loops keep one of these in
// registers: each step goes through add_finite or add_any (whole vectors);
// add_one, which indexes a lane, only runs on a copy for a chunk's last
// partial step. kFloat: the differences are taken in float32
// (kFloatDifference).
template <bool kFloat>
struct diff_lanes {
  lanes_f64 xx{}, yy{}, xy{}, dd{}, dx{}, abs{};
  lanes_f64 max = splat(-kInfinity);
  lanes_i64 max_index = lanes_i64{} - 1;
  lanes_i64 first_nan = lanes_i64{} + kNoIndex;
  lanes_i64 x_nan{}, x_inf{}, y_nan{}, y_inf{};

  // The six sums for kLanes pairs (add_diff_sums); returns |a - b|.
  template <bool kFuse = false>
  GRAFT_HOT lanes_f64 add_sums(lanes_f64 a, lanes_f64 b) {
    return add_diff_sums<kFuse>(a, b, difference<kFloat>(a, b), xx, yy, xy, dd, dx, abs);
  }

  // kLanes finite pairs starting at index i, lane l taking element i + l.
  GRAFT_HOT void add_finite(lanes_f64 a, lanes_f64 b, std::int64_t i) {
    const lanes_f64 abs_d = add_sums(a, b);
    const lanes_i64 above = abs_d > max;
    max = above ? abs_d : max;
    const lanes_i64 index = lanes_i64{0, 1, 2, 3, 4, 5, 6, 7} + i;
    max_index = above ? index : max_index;
  }

  // kLanes pairs of any values: the same arithmetic, plus the counts and the
  // first NaN difference (a mask lane is -1, so subtracting it counts).
  GRAFT_HOT void add_any(lanes_f64 a, lanes_f64 b, std::int64_t i) {
    add_finite(a, b, i);
    const lanes_i64 index = lanes_i64{0, 1, 2, 3, 4, 5, 6, 7} + i;
    const lanes_i64 new_nan = is_nan(a - b) & (first_nan == kNoIndex);
    first_nan = new_nan ? index : first_nan;
    x_nan -= is_nan(a);
    x_inf -= is_inf(a);
    y_nan -= is_nan(b);
    y_inf -= is_inf(b);
  }

  // add_finite's sums for kLanes pairs of finite values, with the largest
  // difference per lane kept in block_max, not in the running maximum: the
  // unchecked loops track the maximum per block of steps (take_block_max)
  // and find its element once at the end (find_max_elements).
  template <bool kFuse>
  GRAFT_HOT void add_unchecked(lanes_f64 a, lanes_f64 b, lanes_f64& block_max) {
    const lanes_f64 abs_d = add_sums<kFuse>(a, b);
    block_max = abs_d > block_max ? abs_d : block_max;
  }

  // The block starting at element i had block_max: a lane whose maximum it
  // exceeds remembers the block (in max_index, until find_max_elements).
  GRAFT_HOT void take_block_max(lanes_f64 block_max, std::int64_t i) {
    detail::take_block_max(block_max, i, max, max_index);
  }

  // Turns take_block_max's blocks into elements, in the lanes whose maximum
  // is the largest: the first step of the lane's block whose |difference| is
  // that maximum. The other lanes forget theirs, which cannot be the range's
  // (the fold keeps the largest and its first index). abs_diff(k) recomputes
  // element k's |difference| with the arithmetic of the loop.
  template <typename AbsDiff>
  void find_max_elements(AbsDiff abs_diff) {
    double largest = -kInfinity;
    for (int l = 0; l < kLanes; ++l) {
      if (max_index[l] >= 0 && max[l] > largest) largest = max[l];
    }
    for (int l = 0; l < kLanes; ++l) {
      if (max_index[l] < 0) continue;
      if (max[l] != largest) {
        max[l] = -kInfinity;
        max_index[l] = -1;
        continue;
      }
      const std::int64_t block = max_index[l];
      for (int s = 0; s < kMaxBlockSteps; ++s) {
        const std::int64_t k = block + s * kLanes + l;
        if (abs_diff(k) == largest) {
          max_index[l] = k;
          break;
        }
      }
    }
  }

  // Whether add_unchecked only ever saw finite values: a NaN or Inf (or a
  // float64 square beyond range) leaves a sum non-finite.
  GRAFT_HOT bool sums_finite() const { return all_finite(xx + yy, dd + dx, abs); }

  // One pair of any values into lane l: add_any's arithmetic for one lane.
  GRAFT_HOT void add_one(int l, double a, double b, std::int64_t i) {
    const double d = difference<kFloat>(a, b);
    const double abs_d = std::abs(d);
    xx[l] += a * a;
    yy[l] += b * b;
    xy[l] += a * b;
    dd[l] += d * d;
    dx[l] += d * a;
    abs[l] += abs_d;
    if (abs_d > max[l]) {
      max[l] = abs_d;
      max_index[l] = i;
    }
    if (std::isnan(abs_d) && first_nan[l] == kNoIndex) first_nan[l] = i;
    x_nan[l] += std::isnan(a);
    x_inf[l] += std::isinf(a);
    y_nan[l] += std::isnan(b);
    y_inf[l] += std::isinf(b);
  }

  diff_partial fold() const {
    diff_partial p;
    std::int64_t nan_index = kNoIndex;
    for (int l = 0; l < kLanes; ++l) {
      p.sum_xx += xx[l];
      p.sum_yy += yy[l];
      p.sum_xy += xy[l];
      p.sum_dd += dd[l];
      p.sum_dx += dx[l];
      p.sum_abs += abs[l];
      if (max[l] > p.max_abs || (max[l] == p.max_abs && max_index[l] >= 0 && max_index[l] < p.max_abs_index)) {
        p.max_abs = max[l];
        p.max_abs_index = max_index[l];
      }
      nan_index = std::min<std::int64_t>(nan_index, first_nan[l]);
      p.x_nan += x_nan[l];
      p.x_inf += x_inf[l];
      p.y_nan += y_nan[l];
      p.y_inf += y_inf[l];
    }
    if (nan_index != kNoIndex) {
      p.max_abs = std::numeric_limits<double>::quiet_NaN();
      p.max_abs_index = nan_index;
    }
    return p;
  }
};

// Value-statistics accumulators of one chunk, per lane (held like diff_lanes).
struct stats_lanes {
  lanes_f64 min = splat(kInfinity), max = splat(-kInfinity), sum{};
  lanes_i64 finite{}, nan{}, inf{};

  GRAFT_HOT void add_finite(lanes_f64 v) {
    min = v < min ? v : min;
    max = v > max ? v : max;
    sum += v;
    finite += 1;
  }

  // Any values: NaN and Inf are counted and left out of min, max and sum.
  GRAFT_HOT void add_any(lanes_f64 v) {
    const lanes_i64 nan_lane = is_nan(v);
    const lanes_i64 inf_lane = is_inf(v);
    const lanes_i64 finite_lane = ~(nan_lane | inf_lane);
    min = finite_lane & (v < min) ? v : min;
    max = finite_lane & (v > max) ? v : max;
    sum = finite_lane ? sum + v : sum;
    finite -= finite_lane;
    nan -= nan_lane;
    inf -= inf_lane;
  }

  GRAFT_HOT void add_one(int l, double v) {
    if (std::isnan(v)) {
      ++nan[l];
    } else if (std::isinf(v)) {
      ++inf[l];
    } else {
      min[l] = v < min[l] ? v : min[l];
      max[l] = v > max[l] ? v : max[l];
      sum[l] += v;
      ++finite[l];
    }
  }

  stats_partial fold() const {
    stats_partial s;
    for (int l = 0; l < kLanes; ++l) {
      s.nan_count += nan[l];
      s.inf_count += inf[l];
      s.finite_count += finite[l];
      s.min = std::min(s.min, min[l]);
      s.max = std::max(s.max, max[l]);
      s.sum += sum[l];
    }
    return s;
  }
};

}  // namespace graft::detail
