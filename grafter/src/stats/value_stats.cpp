// describe()'s statistics: finite min/max/sum and NaN/Inf counts, as one
// hand-written pass on the CPU and as ATen ops on any other device.

#include <cstdint>

#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>

#include "stats/accumulators.hpp"
#include "stats/passes.hpp"
#include "stats/range_driver.hpp"
#include "stats/split_diff.hpp"
#include "stats/split_stats.hpp"

namespace graft::detail {
namespace {

// describe()'s step (range_driver.hpp): one tensor's values.
template <typename T>
struct stats_steps {
  using partial = stats_partial;
  using lanes = stats_lanes;
  using values = step_values<1>;
  static constexpr bool kMayBeNonFinite = detail::kMayBeNonFinite<T>;
  static constexpr bool kAvx512 = true;
  static constexpr bool kHasFastBlocks = true;

  const T* p;

  template <simd kLevel>
  GRAFT_HOT values step(std::int64_t i) const {
    return {load_lanes<kLevel>(p + i)};
  }
  template <simd kLevel>
  GRAFT_HOT void pair(std::int64_t i, values& first, values& second) const {
    const step_pair both = load_step_pair<kLevel>(p + i);
    first = {both.first};
    second = {both.second};
  }
  GRAFT_HOT void add_finite(lanes& l, const values& v, std::int64_t) const { l.add_finite(v.v[0]); }
  GRAFT_HOT void add_any(lanes& l, const values& v, std::int64_t) const { l.add_any(v.v[0]); }
  GRAFT_HOT void add_one(lanes& l, int lane, std::int64_t i) const { l.add_one(lane, static_cast<double>(p[i])); }
  static partial fold(const lanes& l) { return l.fold(); }

  // Whole blocks on the assumption that every value is finite, in
  // register-sized parts (split_stats.hpp: the 8-wide stats_lanes runs lane
  // by lane below AVX-512). A NaN or Inf leaves the sum non-finite, and the
  // careful way runs instead.
  template <simd kLevel>
  GRAFT_HOT bool fast_blocks(lanes& l, std::int64_t begin, std::int64_t end, std::int64_t& i) const {
    split_stats<kDiffParts<kLevel>> parts;
    for (i = begin; i + kBlock <= end; i += kBlock) {
      for (int s = 0; s < kBlockSteps; s += 2) {
        if constexpr (kVectorised<T>) {
          parts.template add_floats<kLevel>(load_floats<kLevel, 2 * kLanes>(p + i + s * kLanes));
        } else {
          parts.add_pair(load_step_pair<kLevel>(p + i + s * kLanes));
        }
      }
    }
    l = parts.to_lanes((i - begin) / kLanes);
    return all_finite(l.sum, l.sum, l.sum);
  }
};

}  // namespace

value_stats cpu_value_stats(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  stats_partial total;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, c.scalar_type(),
                             "graft_cpu_value_stats", [&] {
    total = walk_chunks(stats_steps<scalar_t>{c.data_ptr<scalar_t>()}, c.numel());
  });
  return to_value_stats(total);
}

value_stats aten_value_stats(const at::Tensor& t) {
  const at::Tensor v = t.to(at::kDouble).flatten();
  const at::Tensor finite = at::isfinite(v);
  const at::Tensor not_finite = finite.logical_not();
  const at::Tensor host = at::stack({at::isnan(v).sum().to(at::kDouble),
                                     at::isinf(v).sum().to(at::kDouble),
                                     finite.sum().to(at::kDouble),
                                     v.masked_fill(not_finite, kInfinity).min(),
                                     v.masked_fill(not_finite, -kInfinity).max(),
                                     v.masked_fill(not_finite, 0.0).sum()})
                              .cpu();
  const double* h = host.data_ptr<double>();
  // Counts travel as doubles: exact up to 2^53 elements.
  return {static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1]),
          static_cast<std::int64_t>(h[2]), h[3], h[4], h[5]};
}

}  // namespace graft::detail
