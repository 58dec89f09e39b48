// Scenario expectations against hand-made reports.
#include <algorithm>

#include <gtest/gtest.h>

#include <graft/error.hpp>

#include "cli/command_state.hpp"

namespace loc = graft::harness::localize;

namespace {

loc::localize_report report_with(std::optional<std::size_t> culprit, std::optional<std::size_t> accumulated_first) {
  loc::localize_report r;
  for (int layer = 0; layer < 3; ++layer) {
    loc::point_result p;
    p.name = "attn_output";
    p.layer_id = layer;
    p.label = "attn_output[" + std::to_string(layer) + "]";
    r.points.push_back(p);
  }
  r.culprit = culprit;
  r.accumulated_first = accumulated_first;
  return r;
}

}  // namespace

TEST(ScenarioExpectations, CulpritByNameAndLayer) {
  const auto r = report_with(1, 1);
  EXPECT_TRUE(loc::detail::check_expectations({{"culprit", {{"name", "attn_output"}, {"layer_id", 1}}}}, r).empty());
  EXPECT_EQ(loc::detail::check_expectations({{"culprit", {{"layer_id", 2}}}}, r).size(), 1u);
  EXPECT_EQ(loc::detail::check_expectations({{"culprit", nullptr}}, r).size(), 1u);
  EXPECT_TRUE(loc::detail::check_expectations({{"culprit", nullptr}}, report_with(std::nullopt, 2)).empty());
}

TEST(ScenarioExpectations, AccumulatedLater) {
  const nlohmann::json later = {{"accumulated_later", true}};
  EXPECT_TRUE(loc::detail::check_expectations(later, report_with(0, 2)).empty());
  EXPECT_TRUE(loc::detail::check_expectations(later, report_with(0, std::nullopt)).empty());
  EXPECT_EQ(loc::detail::check_expectations(later, report_with(1, 1)).size(), 1u);
  EXPECT_EQ(loc::detail::check_expectations(later, report_with(std::nullopt, 1)).size(), 1u);
}

TEST(ScenarioOptions, UserCommandsNeedBothSides) {
  loc::detail::command_state s;
  s.baseline_cmd = "prog";
  EXPECT_THROW(loc::detail::to_localize_options(s), graft::config_error);
  s.target_cmd = "prog --bug";
  s.calibrate = true;
  const loc::localize_options o = loc::detail::to_localize_options(s);
  ASSERT_TRUE(o.calibration_target.has_value());
  EXPECT_EQ(o.calibration_target->argv.back(), "prog");  // the baseline against itself
}

TEST(ScenarioOptions, BuiltInCalibrationDropsTheBugAndSwitchesKernels) {
  loc::detail::command_state s;
  s.bug = "attn_scale";
  s.target_dtype = "bfloat16";
  s.calibrate = true;
  const loc::localize_options o = loc::detail::to_localize_options(s);
  const auto& argv = o.calibration_target->argv;
  const auto after = [&](const std::string& flag) {
    return *(std::find(argv.begin(), argv.end(), flag) + 1);
  };
  EXPECT_EQ(after("--bug"), "none");
  EXPECT_EQ(after("--kernels"), "alt");
  EXPECT_EQ(after("--dtype"), "bfloat16");
  const auto& target = o.target.argv;
  EXPECT_EQ(*(std::find(target.begin(), target.end(), "--bug") + 1), "attn_scale");
}
