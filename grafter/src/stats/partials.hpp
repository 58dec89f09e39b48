#pragma once
// The sums one pass leaves, and how they become diff_metrics and
// value_stats: one definition for every pass that computes them (the CPU
// loops, and graft's CUDA kernels, whose sums arrive on the host), so that
// the formulas derived from them (diff_metrics) see the same fields.

#include <cstdint>
#include <limits>

#include <graft/metrics.hpp>

#include "stats/passes.hpp"

namespace graft::detail {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr std::int64_t kNoIndex = std::numeric_limits<std::int64_t>::max();

// One chunk's diff sums, maximum and counts.
struct diff_partial {
  double sum_xx = 0, sum_yy = 0, sum_xy = 0, sum_dd = 0, sum_dx = 0, sum_abs = 0;
  // -Inf so that the first element of a chunk always becomes its maximum.
  double max_abs = -kInfinity;
  std::int64_t max_abs_index = -1;
  std::int64_t x_nan = 0, x_inf = 0, y_nan = 0, y_inf = 0;
};

// One chunk's finite min/max/sum and counts.
struct stats_partial {
  std::int64_t nan_count = 0, inf_count = 0, finite_count = 0;
  double min = kInfinity, max = -kInfinity, sum = 0;
};

inline diff_metrics to_metrics(const diff_partial& total, std::int64_t n) {
  diff_metrics m;
  m.numel = n;
  m.sum_xx = total.sum_xx;
  m.sum_yy = total.sum_yy;
  m.sum_xy = total.sum_xy;
  m.sum_dd = total.sum_dd;
  m.sum_dx = total.sum_dx;
  m.sum_abs = total.sum_abs;
  m.max_abs = total.max_abs;
  m.max_abs_index = total.max_abs_index;
  m.x_nan = total.x_nan;
  m.x_inf = total.x_inf;
  m.y_nan = total.y_nan;
  m.y_inf = total.y_inf;
  return m;
}

inline value_stats to_value_stats(const stats_partial& s) {
  return {s.nan_count, s.inf_count, s.finite_count, s.min, s.max, s.sum};
}

}  // namespace graft::detail
