// The command line's choice of programs: the built-in model, a command per
// side, or one launch command, and what each refuses.
#include <gtest/gtest.h>

#include <graft/error.hpp>

#include "cli/command_state.hpp"

namespace loc = graft::harness::localize;

namespace {

std::string refusal(const loc::detail::command_state& s) {
  try {
    loc::detail::to_localize_options(s);
  } catch (const graft::config_error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Options, ALaunchCommandGivesTheWorldSizesAndRunsOncePerPass) {
  loc::detail::command_state s;
  s.launch = "torchrun --nproc-per-node {target_world_size} engine.py";
  s.baseline_world_size = 2;
  s.target_world_size = 4;
  const loc::localize_options o = loc::detail::to_localize_options(s);
  ASSERT_TRUE(o.launch.has_value());
  EXPECT_EQ(o.launch->argv.back(), s.launch);
  EXPECT_EQ(o.baseline.world_size, 2);
  EXPECT_EQ(o.target.world_size, 4);
  EXPECT_TRUE(o.target.argv.empty());
  EXPECT_FALSE(o.calibration_target.has_value());
  EXPECT_EQ(o.settings["program"], "launch command");
}

TEST(Options, ALaunchCommandRefusesWhatItReplaces) {
  loc::detail::command_state s;
  s.launch = "launch.sh";
  s.baseline_cmd = "a";
  s.target_cmd = "b";
  EXPECT_NE(refusal(s).find("--launch starts every rank itself"), std::string::npos) << refusal(s);
  s.baseline_cmd = s.target_cmd = "";
  s.layers = 3;
  EXPECT_NE(refusal(s).find("--layers: set the built-in model, which --launch replaces"), std::string::npos)
      << refusal(s);
  s.layers = loc::detail::command_state{}.layers;
  s.calibrate = true;
  EXPECT_NE(refusal(s).find("--calibrate with --launch needs --calibration-launch"), std::string::npos) << refusal(s);
  s.calibration_launch = "launch.sh --floor";
  const loc::localize_options o = loc::detail::to_localize_options(s);
  ASSERT_TRUE(o.calibration_launch.has_value());
  EXPECT_EQ(o.calibration_launch->argv.back(), "launch.sh --floor");
  EXPECT_TRUE(o.calibration_target.has_value());
}

TEST(Options, ACalibrationLaunchNeedsALaunch) {
  loc::detail::command_state s;
  s.calibration_launch = "launch.sh";
  EXPECT_EQ(refusal(s), "--calibration-launch goes with --launch");
}

}  // namespace
