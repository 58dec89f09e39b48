#pragma once
// Diff metrics between two tensors, from one pass over both: sum x^2, sum y^2,
// sum xy, sum (x-y)^2, sum (x-y)x, sum |x-y|, max |x-y| with its index,
// NaN/Inf counts. x is the reference (the target's own value before a
// graft), y the candidate. NaN and Inf never throw: they show in the counts
// and the derived values follow IEEE arithmetic.
//
// Two float32 or two bfloat16 tensors differ by float32's x - y, and their
// sums run in float32 over blocks of 512 values added up in float64: each sum
// within 2e-6 of its value, relative to its terms' magnitudes (usually about
// 1e-7). Other dtypes, mixed pairs, and values whose squares float32 cannot
// sum (NaN, Inf, beyond about 1e19, sums below 2^-90) accumulate in float64.
// The same inputs give the same bits on every CPU and thread count.
//
// For tensors that agree closely, rel_diff and cosine come from the sums of
// the difference: the reference's 1 - 2 sum xy / (sum x^2 + sum y^2) is then
// a difference of nearly equal numbers that leaves only their rounding (a
// negative rel_diff for float64 values one bit apart), where sum (x-y)^2 /
// (sum x^2 + sum y^2) keeps the precision of its sums.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace at {
class Tensor;
}

namespace graft {

struct diff_metrics {
  enum class status { ok, empty, shape_mismatch };
  status outcome = status::ok;
  std::string detail;  // "shape mismatch (a=(3,) vs b=(4,))" or "empty"

  std::int64_t numel = 0;
  double sum_xx = 0, sum_yy = 0, sum_xy = 0, sum_dd = 0;
  // sum (x-y)x: with sum_dd it gives sum x^2 - sum y^2 = 2 sum_dx - sum_dd
  // without the cancellation of subtracting two nearly equal sums.
  double sum_dx = 0;
  double sum_abs = 0;
  double max_abs = 0;
  std::int64_t max_abs_index = -1;  // flat index of max |x-y|
  std::int64_t x_nan = 0, x_inf = 0, y_nan = 0, y_inf = 0;

  // sum_dd / (sum_xx + sum_yy), which is the reference's 1 - 2 sum_xy /
  // (sum_xx + sum_yy); NaN when both are zero, never below zero.
  double rel_diff() const;
  double mean_abs() const;
  // sum_xy / (|x| |y|); where |x - y|^2 <= |x| |y|, as 1 - (sum_dd -
  // (|x| - |y|)^2) / (2 |x| |y|), off by at most the sums' precision times
  // rel_diff. Never above 1; NaN when a side is all zero.
  double cosine() const;
  double sqnr_db() const;  // 10 log10(sum_xx / sum_dd); +Inf when identical
  // The reference's line: "rel_diff=0.0285714 max_abs=1 mean_abs=0.333333".
  std::string summary() const;
};

// Compares x and y (any float/int/bool dtypes; any devices: y is read where x
// lives). Two complex tensors compare as their real and imaginary parts
// (view_as_real): numel counts parts, and max_abs_index / 2 is the element.
diff_metrics compare(const at::Tensor& x, const at::Tensor& y);

// How many threads the CPU passes (compare(), describe(), a measured graft)
// spread a large tensor's chunks over at the moment: found by running a
// parallel region, so it is what a pass would get, at most
// at::get_num_threads(). 1 means serial passes.
int cpu_pass_threads();

// JSON with derived values; NaN/Inf/-0.0 encoded as the strings "NaN", "Inf",
// "-Inf", "-0.0" because JSON has no literal for them.
void to_json(nlohmann::json& out, const diff_metrics& m);

// A double as JSON, NaN/Inf/-0.0 encoded explicitly (see above).
nlohmann::json json_number(double v);

// "%.6g" as Python formats it: 0.0285714, 1, nan, inf.
std::string format_g6(double v);

}  // namespace graft
