#pragma once
// The tolerance policy of localize: how large a point's rel_diff may be before
// its verdict fails. Thresholds are in rel_diff units (1 - 2Σxy/(Σx²+Σy²);
// about half the squared relative L2 error), chosen in this order:
//
//   1. a per-name override: the first rule that is the point's label
//      ("attn_output[3]") or a glob matching its name or label ("attn_*");
//   2. a calibrated threshold, when a calibration run measured this point's
//      noise floor: multiplier x floor, never below the dtype default / 1000
//      (so that a bit-identical calibration still leaves room for rounding);
//   3. the default of the less precise of the two sides' dtypes.
//
// Defaults (rel_diff): float64 1e-10, float32 1e-6, float16 1e-4, bfloat16 1e-3
// (sglang's default line, about 27 dB SQNR). A dtype the table lacks uses the
// float32 default. Not thread-safe to modify; const use is.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graft::harness::localize {

struct threshold {
  double rel_diff = 0;
  std::string rule;  // "override 'attn_*'", "calibrated 10 x floor 3.1e-07", "default bfloat16"
};

class tolerance_policy {
 public:
  static constexpr double kFloat64 = 1e-10;
  static constexpr double kFloat32 = 1e-6;
  static constexpr double kFloat16 = 1e-4;
  static constexpr double kBFloat16 = 1e-3;
  static constexpr double kCalibratedMinFraction = 1e-3;

  tolerance_policy();

  // Throws config_error for a non-positive or non-finite value.
  void set_dtype_default(const std::string& dtype, double rel_diff);
  void add_override(const std::string& pattern, double rel_diff);
  void set_calibration_multiplier(double multiplier);
  double calibration_multiplier() const { return multiplier_; }

  // "PATTERN=VALUE" as given to --tolerance / --dtype-tolerance; option names
  // the flag in the error.
  static std::pair<std::string, double> parse_assignment(std::string_view text, std::string_view option);

  // The default for a dtype name ("float32"); the float32 one when unknown.
  double dtype_default(const std::string& dtype) const;
  // The threshold for a point measured between tensors of dtypes a and b.
  threshold threshold_for(const std::string& name, const std::string& label, const std::string& dtype_a,
                          const std::string& dtype_b, std::optional<double> calibrated_floor) const;

  const std::map<std::string, double>& dtype_defaults() const { return defaults_; }
  const std::vector<std::pair<std::string, double>>& overrides() const { return overrides_; }

 private:
  std::map<std::string, double> defaults_;
  std::vector<std::pair<std::string, double>> overrides_;
  double multiplier_ = 10.0;
};

// format_significant(v, 3) (text_format.hpp): "%.3g" with "nan"/"inf" spelled
// out, the one way numbers appear in tables, rules and the plot.
std::string format_number(double v);

}  // namespace graft::harness::localize
