// Scenario expectations against hand-made reports.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft/harness/errors.hpp>

#include "cli/command_state.hpp"
#include "temp_dir.hpp"

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

namespace {

// Returns the fixture_error's message, or "" when the format is accepted.
std::string format_error(const nlohmann::json& scenario) {
  try {
    loc::detail::check_scenario_format(scenario, "s.json");
  } catch (const graft::fixture_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ScenarioFormat, MisspeltKeysAndWrongTypesAreNamed) {
  const nlohmann::json good = {{"schema_version", 1}, {"options", nlohmann::json::object()},
                               {"expect", {{"culprit", {{"name", "mlp_output"}, {"layer_id", 0}}}}}};
  EXPECT_EQ(format_error(good), "");
  const auto error_with = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json s = good;
    s[key] = value;
    return format_error(s);
  };
  EXPECT_NE(error_with("optoins", nlohmann::json::object())
                .find("s.json: 1 problem (format: docs/localize.md, Localize scenarios):\n"
                      "  optoins: unknown key; expected one of: schema_version, description, options, expect"),
            std::string::npos);
  EXPECT_NE(error_with("expect", {{"culprt", {{"name", "mlp_output"}}}}).find("expect.culprt: unknown key"),
            std::string::npos);
  EXPECT_NE(error_with("expect", {{"culprit", {{"layer", 0}}}}).find("expect.culprit.layer: unknown key"),
            std::string::npos);
  EXPECT_NE(error_with("expect", {{"culprit", {{"layer_id", "0"}}}})
                .find("expect.culprit.layer_id: expected an integer, got a string \"0\""),
            std::string::npos);
  EXPECT_NE(error_with("expect", {{"culprit", 3}}).find("expect.culprit: expected null (no point) or"),
            std::string::npos);
  for (const char* point : {"culprit", "accumulated_first"}) {
    EXPECT_NE(error_with("expect", {{point, nlohmann::json::object()}})
                  .find(std::string("expect.") + point + ": {} matches any point"),
              std::string::npos)
        << point;
  }
  EXPECT_NE(error_with("expect", {{"accumulated_later", "yes"}}).find("expect.accumulated_later: expected true or false"),
            std::string::npos);
  EXPECT_NE(error_with("expect", nlohmann::json::object()).find("expect: required: a non-empty object"),
            std::string::npos);
  EXPECT_NE(error_with("schema_version", "1").find("schema_version: expected an integer"), std::string::npos);
  EXPECT_NE(error_with("schema_version", 2).find("schema_version: must be 1, got 2"), std::string::npos);
  EXPECT_NE(error_with("description", 7).find("description: expected a string"), std::string::npos);
  EXPECT_NE(error_with("options", nlohmann::json::array()).find("options: expected an object of option -> value"),
            std::string::npos);
  EXPECT_NE(format_error(nlohmann::json::array()).find("(document): expected an object"), std::string::npos);
}

// One run names every problem, not just the first.
TEST(ScenarioFormat, EveryProblemIsListedAtOnce) {
  const nlohmann::json bad = {{"schema_version", 2},
                              {"optoins", nlohmann::json::object()},
                              {"expect", {{"culprit", {{"layer_id", "0"}}}, {"accumulated_later", 1}}}};
  const std::string message = format_error(bad);
  EXPECT_NE(message.find("s.json: 4 problems"), std::string::npos) << message;
  for (const char* at : {"\n  schema_version:", "\n  optoins:", "\n  expect.culprit.layer_id:",
                         "\n  expect.accumulated_later:"}) {
    EXPECT_NE(message.find(at), std::string::npos) << at << " in " << message;
  }
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

namespace {

// The config_error's message, or "" when the options are accepted.
std::string options_error(const loc::detail::command_state& s) {
  try {
    loc::detail::to_localize_options(s);
  } catch (const graft::config_error& e) {
    return e.what();
  }
  return "";
}

loc::detail::command_state user_programs() {
  loc::detail::command_state s;
  s.baseline_cmd = "prog";
  s.target_cmd = "prog --bug";
  return s;
}

}  // namespace

// An option that would change nothing is refused, not ignored.
TEST(ScenarioOptions, OptionsOfTheOtherProgramKindAreRefusedNotIgnored) {
  loc::detail::command_state built_in;
  built_in.target_world_size = 2;
  EXPECT_NE(options_error(built_in).find("--baseline-world-size/--target-world-size need --baseline-cmd/--target-cmd"),
            std::string::npos)
      << options_error(built_in);

  loc::detail::command_state user = user_programs();
  user.target_world_size = 2;
  EXPECT_EQ(options_error(user), "");
  user.layers = 6;
  user.bug = "attn_scale";
  user.model = "/elsewhere/graft_model";
  EXPECT_NE(options_error(user).find("--layers, --bug, --model: set the built-in model, which "
                                     "--baseline-cmd/--target-cmd replace"),
            std::string::npos)
      << options_error(user);
}

TEST(ScenarioOptions, WorldSizesAreProcessCountsWithinABound) {
  loc::detail::command_state s = user_programs();
  s.target_world_size = 256;
  EXPECT_EQ(options_error(s), "");
  s.target_world_size = 257;
  EXPECT_NE(options_error(s).find("--target-world-size 257: must be in [1, 256]"), std::string::npos)
      << options_error(s);
  s.target_world_size = 1;
  s.baseline_world_size = 0;
  EXPECT_NE(options_error(s).find("--baseline-world-size 0: must be in [1, 256]"), std::string::npos)
      << options_error(s);
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

// Caught before any pass starts, not after both passes ran.
TEST(ScenarioOptions, ABugLayerBeyondTheModelIsBadInputAtOnce) {
  loc::detail::command_state s;
  s.bug = "norm_eps";
  s.layers = 4;
  s.bug_layer = 9;
  try {
    loc::detail::to_localize_options(s);
    FAIL() << "expected config_error";
  } catch (const graft::config_error& e) {
    EXPECT_NE(std::string(e.what()).find("--bug-layer 9: must be in [0, 4) for --layers 4"), std::string::npos)
        << e.what();
  }
  s.bug = "none";  // without a bug the layer is unused
  EXPECT_NO_THROW(loc::detail::to_localize_options(s));
}

// The model, not localize, knows its bugs: it names the one it lacks.
TEST(ScenarioOptions, ABugTheModelLacksIsBadInputAtOnce) {
  loc::detail::command_state s;
  s.bug = "typo";
  EXPECT_NE(options_error(s).find("--bug: typo not in"), std::string::npos) << options_error(s);
}

// A model too large to build is refused before a rank runs out of memory.
TEST(ScenarioOptions, AModelBeyondItsMemoryBoundIsBadInputAtOnce) {
  loc::detail::command_state s;
  s.seq_len = 100000000;
  EXPECT_NE(options_error(s).find("--seq-len 100000000: the built-in model would need"), std::string::npos)
      << options_error(s);
  s.seq_len = 2048;
  EXPECT_EQ(options_error(s), "");
}

TEST(ScenarioOptions, ARunNameMustStayInItsFolder) {
  loc::detail::command_state s;
  for (const char* bad : {"../x", ".", "a/b"}) {
    s.name = bad;
    try {
      loc::detail::to_localize_options(s);
      FAIL() << "expected config_error for " << bad;
    } catch (const graft::config_error& e) {
      EXPECT_NE(std::string(e.what()).find("not a run name"), std::string::npos) << e.what();
    }
  }
  s.name = "my_run-2";
  EXPECT_EQ(loc::detail::to_localize_options(s).run_name, "my_run-2");
}

// A model that cannot start or a reports folder that cannot be made would
// fail every pass alike: named with its option before any process starts.
TEST(ScenarioOptions, AnUnstartableModelOrUnwritableReportsFolderIsBadInputAtOnce) {
  const std::filesystem::path missing = std::filesystem::temp_directory_path() / "graft_no_such_model";
  loc::detail::command_state s;
  s.model = missing.string();
  EXPECT_NE(options_error(s).find("--model '" + missing.string() + "': no such file; build it"), std::string::npos)
      << options_error(s);

  loc::detail::command_state under_a_file;
  under_a_file.reports = "/dev/null/reports";
  EXPECT_NE(options_error(under_a_file).find("--reports '/dev/null/reports': cannot create this folder"),
            std::string::npos)
      << options_error(under_a_file);
}

// Refused before the passes run, rather than failing to write after both did.
TEST(ScenarioOptions, SomethingWhereTheRunWritesIsBadInputAtOnce) {
  graft::harness::testing::temp_dir dir;
  loc::detail::command_state s;
  s.reports = dir.path().string();
  s.name = "taken";
  dir.write("localize/taken", "a file where the run's folder goes");
  EXPECT_NE(options_error(s).find("--name 'taken': " + (dir / "localize/taken").string() + " is not a folder"),
            std::string::npos)
      << options_error(s);
  std::filesystem::remove(dir / "localize/taken");
  std::filesystem::create_directories(dir / "localize/taken/report.json");
  EXPECT_NE(options_error(s).find((dir / "localize/taken/report.json").string() + " is a folder, not a file"),
            std::string::npos)
      << options_error(s);
  std::filesystem::remove(dir / "localize/taken/report.json");
  EXPECT_EQ(options_error(s), "");
}
