#include <graft/metrics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/ops/view_as_real.h>
#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/tensor_info.hpp>

#include "stats/passes.hpp"

namespace graft {
namespace {

void check_comparable(const at::Tensor& t, const char* side) {
  const std::string name = side;
  if (!t.defined()) {
    GRAFT_THROW(error, "compare: " + name + " is undefined; pass a defined at::Tensor");
  }
  if (t.layout() != at::kStrided) {
    GRAFT_THROW(error, "compare: " + name + " is not strided; pass a dense tensor (to_dense())");
  }
  if (t.is_meta()) {
    GRAFT_THROW(error, "compare: " + name + " is on the meta device and holds no values; "
                       "pass a tensor with storage");
  }
  if (!detail::is_real_dtype(t.scalar_type()) && !t.is_complex()) {
    GRAFT_THROW(error, "compare: " + name + " has dtype " + dtype_name(t) +
                           ", which has no ordered real values; pass a floating, integer, bool "
                           "or complex tensor");
  }
}

// A complex tensor as its real and imaginary parts, side by side: the values
// as they read (a lazy conjugate resolved), one more dimension of 2.
at::Tensor as_parts(const at::Tensor& t) { return t.is_complex() ? at::view_as_real(t.resolve_conj()) : t; }

const char* outcome_name(diff_metrics::status s) {
  switch (s) {
    case diff_metrics::status::ok: return "ok";
    case diff_metrics::status::empty: return "empty";
    case diff_metrics::status::shape_mismatch: return "shape_mismatch";
  }
  return "ok";
}

}  // namespace

double diff_metrics::rel_diff() const { return sum_dd / (sum_xx + sum_yy); }

double diff_metrics::mean_abs() const { return sum_abs / static_cast<double>(numel); }

double diff_metrics::cosine() const {
  const double norm_x = std::sqrt(sum_xx);
  const double norm_y = std::sqrt(sum_yy);
  if (!(norm_x > 0 && norm_y > 0)) return std::numeric_limits<double>::quiet_NaN();  // a side all zero, or NaN
  // Each form errs by about the sums' relative precision times its largest
  // sum over |x| |y|: sum_xy's by at most that precision, the difference's
  // by less where the difference is small (and not at all for equal tensors).
  const double norms = norm_x * norm_y;
  if (!(sum_dd <= norms)) return sum_xy / norms;
  // |x| - |y| = (sum x^2 - sum y^2) / (|x| + |y|); sum_dd >= (|x| - |y|)^2
  // (the triangle inequality), so an excess below zero is rounding.
  const double norm_gap = (2 * sum_dx - sum_dd) / (norm_x + norm_y);
  const double excess = sum_dd - norm_gap * norm_gap;
  return 1.0 - std::max(excess, 0.0) / (2 * norms);
}

double diff_metrics::sqnr_db() const { return 10.0 * std::log10(sum_xx / sum_dd); }

std::string diff_metrics::summary() const {
  if (outcome != status::ok) return detail;
  return "rel_diff=" + format_g6(rel_diff()) + " max_abs=" + format_g6(max_abs) +
         " mean_abs=" + format_g6(mean_abs());
}

diff_metrics compare(const at::Tensor& x, const at::Tensor& y) {
  check_comparable(x, "x");
  check_comparable(y, "y");
  if (x.is_complex() != y.is_complex()) {
    GRAFT_THROW(error, "compare: x is " + dtype_name(x) + " and y is " + dtype_name(y) +
                           "; a complex tensor compares with a complex one only (convert the other first)");
  }
  diff_metrics m;
  if (x.sizes() != y.sizes()) {
    m.outcome = diff_metrics::status::shape_mismatch;
    m.detail = "shape mismatch (a=" + shape_string(x.sizes().vec()) +
               " vs b=" + shape_string(y.sizes().vec()) + ")";
    return m;
  }
  if (x.numel() == 0) {
    m.outcome = diff_metrics::status::empty;
    m.detail = "empty";
    return m;
  }
  const at::Tensor xd = as_parts(x.detach());
  const at::Tensor yd = as_parts(y.detach().to(x.device()));
  return xd.is_cpu() ? detail::cpu_diff_pass(xd, yd) : detail::aten_diff_pass(xd, yd);
}

void to_json(nlohmann::json& out, const diff_metrics& m) {
  // Member by member: an initializer list would build every value twice.
  out = nlohmann::json::object();
  out["outcome"] = outcome_name(m.outcome);
  out["numel"] = m.numel;
  out["rel_diff"] = json_number(m.rel_diff());
  out["max_abs"] = json_number(m.max_abs);
  out["max_abs_index"] = m.max_abs_index;
  out["mean_abs"] = json_number(m.mean_abs());
  out["cosine"] = json_number(m.cosine());
  out["sqnr_db"] = json_number(m.sqnr_db());
  out["nan"]["x"] = m.x_nan;
  out["nan"]["y"] = m.y_nan;
  out["inf"]["x"] = m.x_inf;
  out["inf"]["y"] = m.y_inf;
  if (m.outcome != diff_metrics::status::ok) out["detail"] = m.detail;
}

}  // namespace graft
