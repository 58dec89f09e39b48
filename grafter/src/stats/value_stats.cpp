// describe()'s statistics: finite min/max/sum and NaN/Inf counts, as one
// hand-written pass on the CPU and as ATen ops on any other device.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <ATen/Dispatch.h>
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>

#include "stats/chunked.hpp"
#include "stats/passes.hpp"

namespace graft::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct stats_partial {
  std::int64_t nan_count = 0, inf_count = 0, finite_count = 0;
  double min = kInf, max = -kInf, sum = 0;
};

template <typename T>
stats_partial stats_range(const T* p, std::int64_t begin, std::int64_t end) {
  stats_partial s;
  for (std::int64_t i = begin; i < end; ++i) {
    const double v = static_cast<double>(p[i]);
    if constexpr (kMayBeNonFinite<T>) {
      if (std::isnan(v)) {
        ++s.nan_count;
        continue;
      }
      if (std::isinf(v)) {
        ++s.inf_count;
        continue;
      }
    }
    ++s.finite_count;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    s.sum += v;
  }
  return s;
}

void combine(stats_partial& into, const stats_partial& next) {
  into.nan_count += next.nan_count;
  into.inf_count += next.inf_count;
  into.finite_count += next.finite_count;
  into.min = std::min(into.min, next.min);
  into.max = std::max(into.max, next.max);
  into.sum += next.sum;
}

}  // namespace

value_stats cpu_value_stats(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  stats_partial total;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, c.scalar_type(),
                             "graft_cpu_value_stats", [&] {
    const scalar_t* p = c.data_ptr<scalar_t>();
    total = chunked_reduce<stats_partial>(
        c.numel(), [&](std::int64_t b, std::int64_t e) { return stats_range(p, b, e); },
        combine);
  });
  return {total.nan_count, total.inf_count, total.finite_count,
          total.min,       total.max,       total.sum};
}

value_stats aten_value_stats(const at::Tensor& t) {
  const at::Tensor v = t.to(at::kDouble).flatten();
  const at::Tensor finite = at::isfinite(v);
  const at::Tensor not_finite = finite.logical_not();
  const at::Tensor host = at::stack({at::isnan(v).sum().to(at::kDouble),
                                     at::isinf(v).sum().to(at::kDouble),
                                     finite.sum().to(at::kDouble),
                                     v.masked_fill(not_finite, kInf).min(),
                                     v.masked_fill(not_finite, -kInf).max(),
                                     v.masked_fill(not_finite, 0.0).sum()})
                              .cpu();
  const double* h = host.data_ptr<double>();
  // Counts travel as doubles: exact up to 2^53 elements.
  return {static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1]),
          static_cast<std::int64_t>(h[2]), h[3], h[4], h[5]};
}

}  // namespace graft::detail
