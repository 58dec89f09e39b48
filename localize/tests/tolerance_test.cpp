#include <graft/localize/tolerance.hpp>

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <graft/error.hpp>

namespace loc = graft::harness::localize;

TEST(Tolerance, DtypeDefaultsFollowTheLessPreciseSide) {
  const loc::tolerance_policy policy;
  EXPECT_DOUBLE_EQ(policy.threshold_for("x", "x[0]", "float32", "float32", std::nullopt).rel_diff, 1e-6);
  const loc::threshold mixed = policy.threshold_for("x", "x[0]", "float32", "bfloat16", std::nullopt);
  EXPECT_DOUBLE_EQ(mixed.rel_diff, 1e-3);
  EXPECT_EQ(mixed.rule, "default bfloat16");
  EXPECT_DOUBLE_EQ(policy.threshold_for("x", "x[0]", "float64", "float64", std::nullopt).rel_diff, 1e-10);
  // Unknown dtypes fall back to float32.
  EXPECT_DOUBLE_EQ(policy.threshold_for("x", "x[0]", "int8", "", std::nullopt).rel_diff, 1e-6);
}

TEST(Tolerance, OverrideGlobsNameOrLabelAndWinsOverCalibration) {
  loc::tolerance_policy policy;
  policy.add_override("attn_*", 5e-4);
  policy.add_override("logits[4]", 2e-2);
  const loc::threshold by_name = policy.threshold_for("attn_output", "attn_output[2]", "float32", "float32", 1e-9);
  EXPECT_DOUBLE_EQ(by_name.rel_diff, 5e-4);
  EXPECT_EQ(by_name.rule, "override 'attn_*'");
  EXPECT_DOUBLE_EQ(policy.threshold_for("logits", "logits[4]", "float32", "float32", std::nullopt).rel_diff, 2e-2);
  EXPECT_DOUBLE_EQ(policy.threshold_for("logits", "logits[3]", "float32", "float32", std::nullopt).rel_diff, 1e-6);
}

// Documented: when several patterns match, the first given wins.
TEST(Tolerance, TheFirstMatchingOverrideWins) {
  loc::tolerance_policy policy;
  policy.add_override("attn_output[2]", 1e-2);
  policy.add_override("attn_*", 5e-4);
  EXPECT_DOUBLE_EQ(policy.threshold_for("attn_output", "attn_output[2]", "float32", "float32", std::nullopt).rel_diff,
                   1e-2);
  EXPECT_DOUBLE_EQ(policy.threshold_for("attn_output", "attn_output[1]", "float32", "float32", std::nullopt).rel_diff,
                   5e-4);
}

TEST(Tolerance, CalibratedThresholdIsAMultipleOfTheFloorWithAMinimum) {
  loc::tolerance_policy policy;
  policy.set_calibration_multiplier(20);
  const loc::threshold t = policy.threshold_for("x", "x[1]", "bfloat16", "float32", 3e-5);
  EXPECT_DOUBLE_EQ(t.rel_diff, 6e-4);
  EXPECT_EQ(t.rule, "calibrated 20 x floor 3e-05");
  // A bit-identical calibration leaves the dtype default / 1000.
  EXPECT_DOUBLE_EQ(policy.threshold_for("x", "x[1]", "float32", "float32", 0.0).rel_diff, 1e-9);
}

TEST(Tolerance, SetDtypeDefaultReplacesIt) {
  loc::tolerance_policy policy;
  policy.set_dtype_default("bfloat16", 1e-7);
  EXPECT_DOUBLE_EQ(policy.threshold_for("x", "x", "bfloat16", "float32", std::nullopt).rel_diff, 1e-6);
  EXPECT_DOUBLE_EQ(policy.dtype_default("bfloat16"), 1e-7);
}

TEST(Tolerance, BadValuesAreConfigErrorsThatNameTheFix) {
  loc::tolerance_policy policy;
  EXPECT_THROW(policy.set_dtype_default("float8", 1e-3), graft::config_error);
  EXPECT_THROW(policy.add_override("x", -1), graft::config_error);
  EXPECT_THROW(policy.add_override("x", std::numeric_limits<double>::quiet_NaN()), graft::config_error);
  EXPECT_THROW(policy.set_calibration_multiplier(0.5), graft::config_error);
  try {
    loc::tolerance_policy::parse_assignment("attn_*", "--tolerance");
    FAIL() << "expected a config_error";
  } catch (const graft::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("PATTERN=VALUE"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loc::tolerance_policy::parse_assignment("attn_*=abc", "--tolerance"), graft::config_error);
  const auto [pattern, value] = loc::tolerance_policy::parse_assignment("a=b*=1e-4", "--tolerance");
  EXPECT_EQ(pattern, "a=b*");
  EXPECT_DOUBLE_EQ(value, 1e-4);
}

TEST(Tolerance, FormatNumberSpellsNonFinite) {
  EXPECT_EQ(loc::format_number(0.000123456), "0.000123");
  EXPECT_EQ(loc::format_number(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(loc::format_number(std::numeric_limits<double>::infinity()), "inf");
}
