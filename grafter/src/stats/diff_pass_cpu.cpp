// compare() for CPU tensors: one hand-written pass over both tensors,
// accumulating in float64 per fixed chunk (see chunked.hpp).

#include <cmath>
#include <cstdint>
#include <limits>

#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>

#include "stats/chunked.hpp"
#include "stats/passes.hpp"

namespace graft::detail {
namespace {

struct diff_partial {
  double sum_xx = 0, sum_yy = 0, sum_xy = 0, sum_dd = 0, sum_abs = 0;
  // -Inf so that the first element of a chunk always becomes its maximum.
  double max_abs = -std::numeric_limits<double>::infinity();
  std::int64_t max_abs_index = -1;
  std::int64_t x_nan = 0, x_inf = 0, y_nan = 0, y_inf = 0;
};

// A NaN difference wins over any number (as torch.max); among equals the
// earlier index stays, so the index is the first occurrence.
bool beats(double candidate, double current) {
  return candidate > current || (std::isnan(candidate) && !std::isnan(current));
}

void count_non_finite(double v, std::int64_t& nan_count, std::int64_t& inf_count) {
  if (std::isnan(v)) {
    ++nan_count;
  } else if (std::isinf(v)) {
    ++inf_count;
  }
}

template <typename T>
diff_partial diff_range(const T* x, const T* y, std::int64_t begin, std::int64_t end) {
  diff_partial p;
  for (std::int64_t i = begin; i < end; ++i) {
    const double a = static_cast<double>(x[i]);
    const double b = static_cast<double>(y[i]);
    const double d = a - b;
    const double abs_d = std::abs(d);
    p.sum_xx += a * a;
    p.sum_yy += b * b;
    p.sum_xy += a * b;
    p.sum_dd += d * d;
    p.sum_abs += abs_d;
    if (beats(abs_d, p.max_abs)) {
      p.max_abs = abs_d;
      p.max_abs_index = i;
    }
    if constexpr (kMayBeNonFinite<T>) {
      count_non_finite(a, p.x_nan, p.x_inf);
      count_non_finite(b, p.y_nan, p.y_inf);
    }
  }
  return p;
}

void combine(diff_partial& into, const diff_partial& next) {
  into.sum_xx += next.sum_xx;
  into.sum_yy += next.sum_yy;
  into.sum_xy += next.sum_xy;
  into.sum_dd += next.sum_dd;
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

}  // namespace

diff_metrics cpu_diff_pass(const at::Tensor& x, const at::Tensor& y) {
  // One loop per element type keeps the common same-dtype case copy-free;
  // any other pair is widened to float64 first, which is exact for every
  // real dtype except int64 beyond 2^53.
  const bool typed = x.scalar_type() == y.scalar_type() && has_cpu_loop(x.scalar_type());
  const at::Tensor xc = typed ? x.contiguous() : x.to(at::kDouble).contiguous();
  const at::Tensor yc = typed ? y.contiguous() : y.to(at::kDouble).contiguous();
  const std::int64_t n = xc.numel();

  diff_partial total;
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, xc.scalar_type(),
                             "graft_cpu_diff_pass", [&] {
    const scalar_t* xp = xc.data_ptr<scalar_t>();
    const scalar_t* yp = yc.data_ptr<scalar_t>();
    total = chunked_reduce<diff_partial>(
        n, [&](std::int64_t b, std::int64_t e) { return diff_range(xp, yp, b, e); }, combine);
  });

  diff_metrics m;
  m.numel = n;
  m.sum_xx = total.sum_xx;
  m.sum_yy = total.sum_yy;
  m.sum_xy = total.sum_xy;
  m.sum_dd = total.sum_dd;
  m.sum_abs = total.sum_abs;
  m.max_abs = total.max_abs;
  m.max_abs_index = total.max_abs_index;
  m.x_nan = total.x_nan;
  m.x_inf = total.x_inf;
  m.y_nan = total.y_nan;
  m.y_inf = total.y_inf;
  return m;
}

}  // namespace graft::detail
