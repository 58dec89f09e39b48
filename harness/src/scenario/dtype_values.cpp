#include "scenario/dtype_values.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include <graft/harness/json_format.hpp>

namespace graft::harness::detail {

namespace {

// The whole numbers an integer scenario tensor holds: int32's range, and for
// int64 the integers float64 holds exactly (2^53).
std::optional<std::pair<double, double>> integer_bounds(const std::string& dtype) {
  if (dtype == "int32") return std::pair{-2147483648.0, 2147483647.0};
  if (dtype == "int64") return std::pair{-9007199254740992.0, 9007199254740992.0};
  return std::nullopt;
}

struct float_range {
  double largest;   // the largest finite value
  double overflow;  // the smallest magnitude that rounds to infinity: largest + half its ulp
};

std::optional<float_range> float_bounds(const std::string& dtype) {
  if (dtype == "float16") return float_range{65504.0, 65520.0};
  if (dtype == "bfloat16") return float_range{std::ldexp(2.0 - std::ldexp(1.0, -7), 127), std::ldexp(2.0 - std::ldexp(1.0, -8), 127)};
  if (dtype == "float32") return float_range{std::ldexp(2.0 - std::ldexp(1.0, -23), 127), std::ldexp(2.0 - std::ldexp(1.0, -24), 127)};
  return std::nullopt;
}

std::optional<std::string> integer_value_problem(double v, const std::string& shown, const std::string& dtype,
                                                 const std::pair<double, double>& bounds) {
  if (!std::isfinite(v)) return shown + " has no " + dtype + " value; use a whole number, or a float dtype";
  if (v != std::trunc(v)) {
    return shown + " is not a whole number, and an " + dtype + " tensor would truncate it; use a whole number";
  }
  if (v < bounds.first || v > bounds.second) {
    return shown + " is beyond the whole numbers an " + dtype + " scenario tensor holds exactly, [" +
           number_text(bounds.first) + ", " + number_text(bounds.second) + "]";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> dtype_value_problem(double v, const std::string& shown, const std::string& dtype) {
  if (const auto bounds = integer_bounds(dtype)) return integer_value_problem(v, shown, dtype, *bounds);
  const auto range = float_bounds(dtype);
  if (range && std::isfinite(v) && std::fabs(v) >= range->overflow) {
    return shown + " is beyond " + dtype + "'s largest finite value, " + number_text(range->largest) +
           ", and would become " + (v > 0 ? "Inf" : "-Inf") + "; use a smaller number, a wider dtype, or write \"" +
           (v > 0 ? "Inf" : "-Inf") + "\" if infinity is meant";
  }
  return std::nullopt;
}

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e18) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
    return buffer;
  }
  return format_float(v);
}

}  // namespace graft::harness::detail
