#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <graft/harness/json_format.hpp>

namespace graft::harness {
namespace {

TEST(FormatFloat, FixedPrecisionAlwaysReadsBackAsFloat) {
  EXPECT_EQ(format_float(2.0), "2.0");
  EXPECT_EQ(format_float(0.1), "0.1");
  EXPECT_EQ(format_float(1.0 / 3.0), "0.333333333");
  EXPECT_EQ(format_float(1e20), "1e+20");
  EXPECT_EQ(format_float(-2.5e-7), "-2.5e-07");
  EXPECT_TRUE(nlohmann::json::parse(format_float(3.0)).is_number_float());
}

TEST(EncodeSpecialFloats, NanInfAndNegativeZeroBecomeStrings) {
  const nlohmann::json in = {{"nan", std::nan("")},
                             {"inf", std::numeric_limits<double>::infinity()},
                             {"ninf", -std::numeric_limits<double>::infinity()},
                             {"nzero", -0.0},
                             {"zero", 0.0},
                             {"nested", {1.5, std::nan("")}}};
  const nlohmann::json out = encode_special_floats(in);
  EXPECT_EQ(out["nan"], "NaN");
  EXPECT_EQ(out["inf"], "Inf");
  EXPECT_EQ(out["ninf"], "-Inf");
  EXPECT_EQ(out["nzero"], "-0.0");
  EXPECT_TRUE(out["zero"].is_number_float());
  EXPECT_EQ(out["nested"][1], "NaN");
  EXPECT_EQ(out["nested"][0], 1.5);
}

TEST(DecodeSpecialFloat, RoundTripsTheFourSpellings) {
  double v = 0;
  ASSERT_TRUE(decode_special_float("NaN", &v));
  EXPECT_TRUE(std::isnan(v));
  ASSERT_TRUE(decode_special_float("-Inf", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  ASSERT_TRUE(decode_special_float("-0.0", &v));
  EXPECT_TRUE(v == 0.0 && std::signbit(v));
  EXPECT_FALSE(decode_special_float("nan", &v));
  EXPECT_FALSE(decode_special_float("1.0", &v));
}

TEST(FormatJson, SortedKeysInlineShortArraysAndStableBytes) {
  nlohmann::json j = {{"b", 1}, {"a", {{"shape", {2, 3}}, {"mean", 0.1 + 0.2}}}, {"nan", std::nan("")}};
  const std::string text = format_json(j);
  EXPECT_EQ(text,
            "{\n"
            "  \"a\": {\n"
            "    \"mean\": 0.3,\n"
            "    \"shape\": [2, 3]\n"
            "  },\n"
            "  \"b\": 1,\n"
            "  \"nan\": \"NaN\"\n"
            "}\n");
  EXPECT_EQ(format_json(nlohmann::json::parse(text)), text);
}

TEST(FormatJson, LongScalarArraysBreakOneItemPerLine) {
  nlohmann::json values = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) values.push_back(1000 + i);
  const std::string text = format_json(values);
  EXPECT_NE(text.find("[\n  1000,\n  1001,"), std::string::npos);
}

}  // namespace
}  // namespace graft::harness
