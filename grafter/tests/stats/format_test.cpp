#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/metrics.hpp>

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Expected strings are Python's format(v, ".6g").
TEST(format_g6, matches_python) {
  EXPECT_EQ(graft::format_g6(1.0 - 2.0 * 17.0 / 35.0), "0.0285714");
  EXPECT_EQ(graft::format_g6(1.0), "1");
  EXPECT_EQ(graft::format_g6(96.5), "96.5");
  EXPECT_EQ(graft::format_g6(0.0), "0");
  EXPECT_EQ(graft::format_g6(-0.0), "-0");
  EXPECT_EQ(graft::format_g6(1.0 / 3.0), "0.333333");
  EXPECT_EQ(graft::format_g6(1e-07), "1e-07");
  EXPECT_EQ(graft::format_g6(1e-05), "1e-05");
  EXPECT_EQ(graft::format_g6(0.0001), "0.0001");
  EXPECT_EQ(graft::format_g6(123456.0), "123456");
  EXPECT_EQ(graft::format_g6(1234567.0), "1.23457e+06");
  EXPECT_EQ(graft::format_g6(-2.5e123), "-2.5e+123");
  EXPECT_EQ(graft::format_g6(kInf), "inf");
  EXPECT_EQ(graft::format_g6(-kInf), "-inf");
}

TEST(format_g6, any_nan_prints_as_nan) {
  EXPECT_EQ(graft::format_g6(std::nan("")), "nan");
  EXPECT_EQ(graft::format_g6(-std::nan("")), "nan");
}

TEST(json_number, encodes_what_json_cannot_spell) {
  EXPECT_EQ(graft::json_number(std::nan("")), "NaN");
  EXPECT_EQ(graft::json_number(-std::nan("")), "NaN");
  EXPECT_EQ(graft::json_number(kInf), "Inf");
  EXPECT_EQ(graft::json_number(-kInf), "-Inf");
  EXPECT_EQ(graft::json_number(-0.0), "-0.0");
}

TEST(json_number, plain_doubles_stay_numbers) {
  const nlohmann::json zero = graft::json_number(0.0);
  ASSERT_TRUE(zero.is_number_float());
  EXPECT_EQ(zero.dump(), "0.0");
  const nlohmann::json value = graft::json_number(0.1);
  ASSERT_TRUE(value.is_number_float());
  EXPECT_EQ(value.get<double>(), 0.1);
  EXPECT_EQ(graft::json_number(-1.5e-300).get<double>(), -1.5e-300);
}

}  // namespace
