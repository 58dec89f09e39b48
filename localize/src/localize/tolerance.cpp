#include <graft/localize/tolerance.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <graft/error.hpp>
#include <graft/harness/text_format.hpp>

namespace graft::harness::localize {

namespace {

void require_positive(double v, const std::string& what) {
  if (!(std::isfinite(v) && v > 0)) {
    GRAFT_THROW(config_error, what + ": " + format_number(v) + " is not a positive finite rel_diff; pass e.g. 1e-4");
  }
}

bool glob_matches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

}  // namespace

std::string format_number(double v) { return format_significant(v, 3); }

tolerance_policy::tolerance_policy()
    : defaults_{{"float64", kFloat64}, {"float32", kFloat32}, {"float16", kFloat16}, {"bfloat16", kBFloat16}} {}

void tolerance_policy::set_dtype_default(const std::string& dtype, double rel_diff) {
  if (defaults_.count(dtype) == 0) {
    GRAFT_THROW(config_error, "--dtype-tolerance: unknown dtype '" + dtype +
                                  "'; use float64, float32, float16 or bfloat16");
  }
  require_positive(rel_diff, "--dtype-tolerance " + dtype);
  defaults_[dtype] = rel_diff;
}

void tolerance_policy::add_override(const std::string& pattern, double rel_diff) {
  require_positive(rel_diff, "--tolerance " + pattern);
  overrides_.emplace_back(pattern, rel_diff);
}

void tolerance_policy::set_calibration_multiplier(double multiplier) {
  if (!(std::isfinite(multiplier) && multiplier >= 1)) {
    GRAFT_THROW(config_error, "--calibration-multiplier: " + format_number(multiplier) +
                                  " must be at least 1 (thresholds sit above the noise floor); pass e.g. 10");
  }
  multiplier_ = multiplier;
}

std::pair<std::string, double> tolerance_policy::parse_assignment(std::string_view text, std::string_view option) {
  const auto eq = text.rfind('=');
  const std::string shown = std::string(option) + " '" + std::string(text) + "'";
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    GRAFT_THROW(config_error, shown + ": expected PATTERN=VALUE, e.g. 'attn_*=1e-4'");
  }
  const std::string value(text.substr(eq + 1));
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0') {
    GRAFT_THROW(config_error, shown + ": '" + value + "' is not a number; write e.g. 1e-4");
  }
  return {std::string(text.substr(0, eq)), parsed};
}

double tolerance_policy::dtype_default(const std::string& dtype) const {
  const auto it = defaults_.find(dtype);
  return it != defaults_.end() ? it->second : defaults_.at("float32");
}

threshold tolerance_policy::threshold_for(const std::string& name, const std::string& label,
                                          const std::string& dtype_a, const std::string& dtype_b,
                                          std::optional<double> calibrated_floor) const {
  for (const auto& [pattern, value] : overrides_) {
    // Labels carry brackets, which a glob reads as a character class: an exact
    // label matches as written.
    if (pattern == label || glob_matches(pattern, name) || glob_matches(pattern, label)) {
      return {value, "override '" + pattern + "'"};
    }
  }
  // The less precise side sets the default: its rounding is what both see.
  const bool a_looser = dtype_default(dtype_a) >= dtype_default(dtype_b);
  const std::string& loose = a_looser ? dtype_a : dtype_b;
  const double fallback = dtype_default(loose);
  if (calibrated_floor) {
    const double floor = std::max(*calibrated_floor, 0.0);
    const double value = std::max(multiplier_ * floor, fallback * kCalibratedMinFraction);
    return {value, "calibrated " + format_number(multiplier_) + " x floor " + format_number(floor)};
  }
  return {fallback, "default " + (loose.empty() ? std::string("float32") : loose)};
}

}  // namespace graft::harness::localize
