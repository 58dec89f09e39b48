#include <gtest/gtest.h>

#include <graft/harness/errors.hpp>
#include <graft/harness/scenario.hpp>
#include <graft/harness/worker_protocol.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

nlohmann::json good_document() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "name": "good",
    "description": "two steps",
    "world": {"baseline": 2, "target": 1},
    "timeout_s": 30,
    "grafter": {"b2t_filter": "name == 'x'", "transform_path": "double:double_it", "timeout": 5},
    "tolerances": {"events[*].metrics.rel_diff": {"rtol": 0, "atol": 1e-4}},
    "expect_setup": {"target": {"outcome": "none"}},
    "steps": [
      {"name": "x", "tags": {"layer_id": 3, "phase": "prefill"},
       "baseline": {"tensor": {"shape": [2, 2], "arange": {"start": 1}},
                    "extras": {"k": "v"},
                    "ranks": [{}, {"tensor": {"dtype": "bfloat16", "values": [1, "NaN", 3, 4], "shape": [2, 2]}}],
                    "expect": {"outcome": "sent"}},
       "target": {"tensor": {"shape": [2, 2], "random": {"seed": 7}},
                  "expect": {"outcome": "grafted", "equals": {"of": "baseline", "scale": 2}, "rtol": 0}}},
      {"name": "y", "var": "later",
       "baseline": {"tensor": {"from": "x", "scale": 10}},
       "target": {"non_tensor": "int", "name": "y_renamed"}}
    ]
  })");
}

std::string problems_of(const nlohmann::json& document) {
  try {
    parse_scenario(document, "test.json");
  } catch (const fixture_error& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioLoader, AGoodDocumentLoadsWithDefaultsAndOverrides) {
  const scenario s = parse_scenario(good_document(), "test.json");
  EXPECT_EQ(s.name, "good");
  EXPECT_EQ(s.baseline_world_size, 2);
  EXPECT_EQ(s.target_world_size, 1);
  ASSERT_EQ(s.steps.size(), 2u);
  const scenario_step& x = s.steps[0];
  ASSERT_EQ(x.baseline.size(), 2u);
  ASSERT_TRUE(x.baseline[0].tensor && x.baseline[1].tensor);
  EXPECT_EQ(x.baseline[0].tensor->kind, tensor_spec::source::arange);
  EXPECT_EQ(x.baseline[0].tensor->start, 1);
  EXPECT_EQ(x.baseline[1].tensor->kind, tensor_spec::source::values);
  EXPECT_EQ(x.baseline[1].tensor->dtype, "bfloat16");
  EXPECT_EQ(x.baseline[1].extras["k"], "v");  // the side's extras reach every rank
  ASSERT_TRUE(x.target[0].expect && x.target[0].expect->relation);
  EXPECT_EQ(x.target[0].expect->relation->scale, 2);
  EXPECT_EQ(x.target[0].expect->rtol, 0);
  EXPECT_EQ(s.steps[1].var, "later");
  EXPECT_EQ(s.steps[1].target[0].name, "y_renamed");
  EXPECT_EQ(s.steps[1].target[0].non_tensor, "int");
  EXPECT_EQ(s.steps[1].baseline[0].name, "y");
  ASSERT_TRUE(s.expect_setup_target);
  EXPECT_FALSE(s.expect_setup_baseline);
}

TEST(ScenarioLoader, EveryProblemIsReportedWithItsPathInOneError) {
  nlohmann::json doc = good_document();
  doc["world"]["target"] = 0;
  doc["steps"][0]["target"]["tensor"]["shape"] = "3";
  doc["steps"][0]["baseline"]["tensor"]["dtype"] = "float8";
  doc["steps"][1]["baseline"]["tensor"]["from"] = "nowhere";
  doc["grafter"]["role"] = "target";
  doc["grafter"]["measure"] = "some";
  doc["unknown_key"] = true;
  const std::string text = problems_of(doc);
  EXPECT_NE(text.find("test.json: "), std::string::npos) << text;
  EXPECT_NE(text.find("world.target: expected an integer in [1, 256], got 0"), std::string::npos) << text;
  EXPECT_NE(text.find("grafter.role: set by the runner"), std::string::npos) << text;
  EXPECT_NE(text.find("grafter.measure: expected \"full\" or \"off\", got \"some\""), std::string::npos) << text;
  EXPECT_NE(text.find("unknown_key: unknown key"), std::string::npos) << text;
  EXPECT_NE(text.find("steps[0].baseline.tensor.dtype: \"float8\" is not one of"), std::string::npos) << text;
}

TEST(ScenarioLoader, TensorShapeOfTheWrongTypeNamesTheExactPath) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["tensor"]["shape"] = "3";
  EXPECT_NE(problems_of(doc).find("steps[0].target.tensor.shape: expected an array of ints >= 0, got \"3\""),
            std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, RankOverridesAreCheckedPerRank) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["baseline"]["ranks"] = nlohmann::json::array({nlohmann::json::object()});
  EXPECT_NE(problems_of(doc).find("steps[0].baseline.ranks: expected an array of 2 objects"), std::string::npos)
      << problems_of(doc);
  doc = good_document();
  doc["steps"][0]["baseline"]["ranks"][1]["tensor"] = {{"shape", {3}}, {"values", {1, 2}}};
  EXPECT_NE(problems_of(doc).find("steps[0].baseline.ranks[1].tensor.shape: holds 3 elements but \"values\" has 2"),
            std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, ExactGoesWithValuesAndNoTolerance) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["expect"] = {{"outcome", "grafted"}, {"values", {1, 2, 3, "-0.0"}}, {"exact", true}};
  EXPECT_EQ(problems_of(doc), "") << problems_of(doc);
  doc["steps"][0]["target"]["expect"]["rtol"] = 0;
  EXPECT_NE(problems_of(doc).find("steps[0].target.expect.exact: compares bits: leave out \"rtol\" and \"atol\""),
            std::string::npos)
      << problems_of(doc);
  doc["steps"][0]["target"]["expect"] = {{"outcome", "grafted"}, {"unchanged", true}, {"exact", true}};
  EXPECT_NE(problems_of(doc).find("steps[0].target.expect.exact: only meaningful with \"values\""), std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, TensorSourcesMustBeExactlyOne) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["tensor"] = {{"shape", {2}}, {"fill", 1}, {"arange", true}};
  EXPECT_NE(problems_of(doc).find("steps[0].target.tensor: expected exactly one of"), std::string::npos);
  doc["steps"][0]["target"]["tensor"] = {{"shape", {2}}};
  EXPECT_NE(problems_of(doc).find("(found 0)"), std::string::npos);
  doc["steps"][0]["target"]["tensor"] = {{"fill", 1}};
  EXPECT_NE(problems_of(doc).find("steps[0].target.tensor.shape: required array of ints is missing"),
            std::string::npos);
}

TEST(ScenarioLoader, TensorLayoutIsStridedUnlessSparseIsAsked) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["tensor"]["layout"] = "sparse";
  doc["steps"][0]["target"]["expect"] = {{"outcome", "skipped"}, {"error_kind", "ungraftable_target"}};
  doc["steps"][0]["baseline"]["expect"]["outcome"] = "send_skipped";
  const scenario s = parse_scenario(doc, "test.json");
  EXPECT_EQ(s.steps[0].target[0].tensor->layout, "sparse");
  EXPECT_EQ(s.steps[0].baseline[0].tensor->layout, "strided");
  EXPECT_EQ(s.steps[0].baseline[0].expect->outcome, "send_skipped");

  doc["steps"][0]["target"]["tensor"]["layout"] = "csr";
  EXPECT_NE(problems_of(doc).find("steps[0].target.tensor.layout: \"csr\" is not one of"), std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, VariablesMustComeFromEarlierSteps) {
  nlohmann::json doc = good_document();
  doc["steps"][1]["baseline"]["tensor"]["from"] = "later";
  EXPECT_NE(problems_of(doc).find("steps[1].baseline.tensor.from: variable \"later\" is not set by an earlier step"),
            std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, ExpectationsAreValidated) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["expect"] = {{"outcome", "exploded"}, {"values", {1, "x"}}, {"unchanged", true}};
  const std::string text = problems_of(doc);
  EXPECT_NE(text.find("steps[0].target.expect.outcome: \"exploded\" is not one of"), std::string::npos) << text;
  EXPECT_NE(text.find("steps[0].target.expect.values[1]: expected a number"), std::string::npos) << text;
  EXPECT_NE(text.find("steps[0].target.expect: use at most one of"), std::string::npos) << text;

  doc = good_document();
  doc["steps"][0]["target"]["expect"]["equals"]["rank"] = 5;
  EXPECT_NE(problems_of(doc).find("rank 5 does not exist on the baseline side"), std::string::npos)
      << problems_of(doc);
}

TEST(ScenarioLoader, BothSidesMustSayWhatTheyDo) {
  nlohmann::json doc = good_document();
  doc["steps"][0].erase("target");
  EXPECT_NE(problems_of(doc).find("steps[0].target: required"), std::string::npos);
  doc = good_document();
  doc["steps"][0]["target"] = {{"extras", nullptr}};
  EXPECT_NE(problems_of(doc).find("steps[0].target: a rank that runs needs exactly one of"), std::string::npos);
  doc["steps"][0]["target"] = {{"skip", true}};
  EXPECT_EQ(problems_of(doc), "");
}

// Numbers beyond what a scenario can mean fail at load time: not as a wrapped
// int (4294967297 read as 1), an overflowed deadline or a huge allocation.
TEST(ScenarioLoader, NumbersOutOfRangeAreNamed) {
  nlohmann::json doc = good_document();
  doc["world"]["baseline"] = 4294967297LL;
  doc["world"]["target"] = nlohmann::json(18446744073709551615ULL);
  doc["timeout_s"] = 1e300;
  doc["grafter"]["timeout"] = 1e12;
  doc["steps"][0]["target"]["expect"]["equals"]["rank"] = 4294967296LL;
  doc["steps"][0]["target"]["tensor"]["shape"] = {100000, 100000, 100000};
  doc["steps"][0]["baseline"]["tensor"]["shape"] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  const std::string text = problems_of(doc);
  EXPECT_NE(text.find("world.baseline: expected an integer in [1, 256], got 4294967297"), std::string::npos) << text;
  EXPECT_NE(text.find("world.target: integer 18446744073709551615 is out of range"), std::string::npos) << text;
  EXPECT_NE(text.find("timeout_s: expected a number of seconds in (0, 86400], got 1e+300"), std::string::npos) << text;
  EXPECT_NE(text.find("grafter.timeout: expected a number of seconds in (0, 86400]"), std::string::npos) << text;
  EXPECT_NE(text.find("steps[0].target.expect.equals.rank: expected an integer in [0, 255], got 4294967296"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("steps[0].target.tensor.shape: [100000, 100000, 100000] holds more than 268435456 elements"),
            std::string::npos)
      << text;
  // 2^40 x 2^40 overflows int64: still named, not wrapped into a small count.
  EXPECT_NE(text.find("steps[0].baseline.tensor.shape: [1099511627776, 1099511627776] holds more than"),
            std::string::npos)
      << text;
}

// Tensors are made in float64 and cast: an integer tensor's literals must be
// whole numbers the cast keeps, or it would hold numbers nobody wrote
// (9223372036854775807 came out as -9223372036854775808).
TEST(ScenarioLoader, IntegerTensorsHoldOnlyWholeNumbersTheyKeepExactly) {
  nlohmann::json doc = good_document();
  nlohmann::json& baseline = doc["steps"][0]["baseline"];
  baseline["tensor"] = {{"dtype", "int64"}, {"values", {9223372036854775807LL, 9007199254740992LL, -4}}};
  baseline["ranks"] = nlohmann::json::array({nlohmann::json::object(),
      {{"tensor", {{"dtype", "int32"}, {"values", {1.5, "NaN", 2147483647, -2147483648LL}}}}}});
  doc["steps"][0]["target"]["tensor"] = {{"dtype", "int32"}, {"shape", {4}}, {"arange", {{"start", 2147483645}}}};
  const std::string problems = problems_of(doc);
  EXPECT_NE(problems.find("4 problems"), std::string::npos) << problems;
  EXPECT_NE(problems.find("steps[0].baseline.tensor.values[0]: 9223372036854775807 is beyond the whole numbers an "
                          "int64 scenario tensor holds exactly, [-9007199254740992, 9007199254740992]"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("steps[0].baseline.ranks[1].tensor.values[0]: 1.5 is not a whole number"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("steps[0].baseline.ranks[1].tensor.values[1]: NaN has no int32 value"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find("steps[0].target.tensor.arange (its last element): 2147483648 is beyond"),
            std::string::npos)
      << problems;

  doc["steps"][0]["target"]["tensor"]["arange"]["start"] = 2147483644;
  baseline["tensor"]["values"] = {9007199254740992LL, -9007199254740992LL, 0};
  baseline["ranks"][1]["tensor"]["values"] = {1, 2147483647, -2147483648LL, 0};
  EXPECT_EQ(problems_of(doc), "");
}

// 70000 in a float16 tensor would be Inf: rounding is what a dtype does, an
// overflow is a number the author never wrote. Each dtype's edge is exact:
// the largest value that still rounds to its largest finite one is accepted.
TEST(ScenarioLoader, FloatTensorsRefuseFiniteNumbersTheirDtypeWouldMakeInfinite) {
  nlohmann::json doc = good_document();
  nlohmann::json& baseline = doc["steps"][0]["baseline"];
  baseline["tensor"] = {{"dtype", "float16"}, {"values", {65519.99, 65520, -70000, "Inf"}}};
  baseline["ranks"] = nlohmann::json::array({nlohmann::json::object(),
      {{"tensor", {{"dtype", "bfloat16"}, {"shape", {2}}, {"fill", 3.3963e38}}}}});
  doc["steps"][0]["target"]["tensor"] = {{"shape", {3}}, {"arange", {{"start", 0}, {"step", 1.8e38}}}};
  const std::string problems = problems_of(doc);
  EXPECT_NE(problems.find("4 problems"), std::string::npos) << problems;
  EXPECT_NE(problems.find("steps[0].baseline.tensor.values[1]: 65520 is beyond float16's largest finite value, "
                          "65504, and would become Inf; use a smaller number, a wider dtype, or write \"Inf\""),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("steps[0].baseline.tensor.values[2]: -70000 is beyond float16's largest finite value, "
                          "65504, and would become -Inf"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("steps[0].baseline.ranks[1].tensor.fill: "), std::string::npos) << problems;
  EXPECT_NE(problems.find("steps[0].target.tensor.arange (its last element): "), std::string::npos) << problems;
  EXPECT_EQ(problems.find("values[0]"), std::string::npos) << problems;

  baseline["tensor"]["values"] = {65519.99, -65519.99, "Inf", "-Inf"};
  baseline["ranks"][1]["tensor"]["fill"] = 3.3961e38;
  doc["steps"][0]["target"]["tensor"]["arange"]["step"] = 1.7e38;
  EXPECT_EQ(problems_of(doc), "");
}

TEST(ScenarioLoader, RandomValuesAreOnlyForFloatTensors) {
  nlohmann::json doc = good_document();
  doc["steps"][0]["target"]["tensor"] = {{"dtype", "int64"}, {"shape", {4}}, {"random", {{"seed", 1}}}};
  EXPECT_NE(problems_of(doc).find("steps[0].target.tensor.random: draws float values (uniform in [0, 1), or normal "
                                  "around 0), which an int64 tensor would truncate to mostly zeros"),
            std::string::npos)
      << problems_of(doc);
  doc["steps"][0]["target"]["tensor"]["dtype"] = "float16";
  EXPECT_EQ(problems_of(doc), "");
}

TEST(ScenarioLoader, TheLimitsThemselvesAreAccepted) {
  nlohmann::json doc = good_document();
  doc["world"]["target"] = kMaxScenarioWorldSize;
  doc["timeout_s"] = kMaxScenarioTimeoutSeconds;
  doc["steps"][0]["target"]["tensor"]["shape"] = {std::int64_t{1} << 14, std::int64_t{1} << 14};
  doc["steps"][0]["target"].erase("expect");
  doc["steps"][1]["target"] = {{"skip", true}};
  EXPECT_EQ(problems_of(doc), "");
}

// A name is also a file stem: nothing that leaves its folder.
TEST(ScenarioLoader, NamesThatAreNotFileStemsAreRefused) {
  for (const char* bad : {".", "..", "../x", "a/b", "", "-x", " x", "x y", "caf\xc3\xa9"}) {
    nlohmann::json doc = good_document();
    doc["name"] = bad;
    EXPECT_NE(problems_of(doc).find("is not a scenario name: 1 to 100 letters"), std::string::npos)
        << "name " << bad << ": " << problems_of(doc);
  }
  for (const char* good : {"x", "_x", "double_2x2", "a.b-c", "9lives"}) {
    nlohmann::json doc = good_document();
    doc["name"] = good;
    EXPECT_EQ(problems_of(doc), "") << good;
  }
}

TEST(ScenarioLoader, SchemaVersionIsRequiredAndChecked) {
  nlohmann::json doc = good_document();
  doc["schema_version"] = 2;
  EXPECT_NE(problems_of(doc).find("schema_version: unsupported version 2"), std::string::npos);
  doc.erase("schema_version");
  EXPECT_NE(problems_of(doc).find("schema_version: required integer is missing"), std::string::npos);
}

TEST(ScenarioLoader, FilesMustBeJsonAndNamedAfterTheScenario) {
  testing::temp_dir dir;
  EXPECT_THROW(load_scenario(dir / "missing.json"), fixture_error);
  try {
    load_scenario(dir.write("broken.json", "{\"name\": "));
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json: invalid JSON"), std::string::npos) << e.what();
  }
  try {
    load_scenario(dir.write("other.json", good_document().dump()));
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    EXPECT_NE(std::string(e.what()).find("name: \"good\" differs from the file name"), std::string::npos) << e.what();
  }
  EXPECT_EQ(load_scenario(dir.write("good.json", good_document().dump())).name, "good");
}

// A scenario path that is no file is named for what it is, and a device is
// not read (/dev/zero would never end).
TEST(ScenarioLoader, APathThatIsNoFileIsAFixtureErrorSayingWhatItIs) {
  testing::temp_dir dir;
  const auto refusal_of = [](const std::filesystem::path& path) -> std::string {
    try {
      read_fixture_json(path, "fixtures/README.md");
    } catch (const fixture_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal_of("/dev/zero").find("/dev/zero: is a character device, not a file; pass a scenario file "
                                         "(format: fixtures/README.md)"),
            std::string::npos)
      << refusal_of("/dev/zero");
  EXPECT_NE(refusal_of(dir.path()).find(": is a folder; pass a scenario file"), std::string::npos);
  EXPECT_NE(refusal_of(dir / "missing.json").find("missing.json: cannot read the file (No such file or directory)"),
            std::string::npos);
}

TEST(ScenarioLoader, AFolderOfScenariosNamesEveryJsonThatIsNoFile) {
  testing::temp_dir dir;
  dir.write("good.json", good_document().dump());
  dir.write("notes.txt", "not a scenario, and not named .json");
  std::filesystem::create_directory(dir / "folder.json");
  std::filesystem::create_symlink("absent.json", dir / "dangling.json");
  std::filesystem::create_symlink("loop.json", dir / "loop.json");
  try {
    scenario_files(dir.path());
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("3 cannot be; remove or rename them:"), std::string::npos) << message;
    EXPECT_NE(message.find("dangling.json: No such file or directory"), std::string::npos) << message;
    EXPECT_NE(message.find("folder.json: not a file"), std::string::npos) << message;
    EXPECT_NE(message.find("loop.json: Too many levels of symbolic links"), std::string::npos) << message;
  }
  std::filesystem::remove(dir / "folder.json");
  std::filesystem::remove(dir / "dangling.json");
  std::filesystem::remove(dir / "loop.json");
  EXPECT_EQ(scenario_files(dir.path()), std::vector<std::filesystem::path>{dir / "good.json"});
}

// Nested deep enough to overflow the stack of anything that walks it.
TEST(ScenarioLoader, ADocumentNestedTooDeepIsAFixtureError) {
  testing::temp_dir dir;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    load_scenario(dir.write("deep.json", "{\"extras\": " + deep + "}"));
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json: it nests deeper than 64 levels"),
              std::string::npos)
        << e.what();
  }
}

// A step that says "expect" twice would otherwise be checked against the last
// alone, and a scenario that lost an expectation would still pass.
TEST(ScenarioLoader, AKeyGivenTwiceIsAFixtureErrorNamingItsPath) {
  testing::temp_dir dir;
  std::string text = good_document().dump();
  const std::string expect = R"("expect":{"outcome":"sent"})";
  const std::size_t at = text.find(expect);
  ASSERT_NE(at, std::string::npos) << text;
  text.insert(at + expect.size(), "," + expect);
  try {
    load_scenario(dir.write("good.json", text));
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    EXPECT_NE(std::string(e.what()).find("good.json: steps[0].baseline.expect: the key is given twice in one object"),
              std::string::npos)
        << e.what();
  }
}

// graft list --json writes every problem as a JSON string, and JSON's writer
// throws on bytes that are not UTF-8: a problem is UTF-8 whatever the file
// holds (fuzz/corpus/scenario/regress-*-utf8*.json).
TEST(ScenarioLoader, ProblemsAreUtf8WhateverTheFileHolds) {
  testing::temp_dir dir;
  try {
    load_scenario(dir.write("latin1.json", "{\"name\": \"caf\xe9\"}"));
    FAIL() << "expected fixture_error";
  } catch (const fixture_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("latin1.json: invalid JSON"), std::string::npos) << message;
    EXPECT_NE(message.find("caf\\xe9"), std::string::npos) << message;
    EXPECT_NO_THROW((void)nlohmann::json(message).dump()) << message;
  }
  // A value the message shows shortened is cut between characters.
  nlohmann::json doc = good_document();
  std::string name = "a";
  for (int i = 0; i < 40; ++i) name += "\xc3\xa9";  // é
  doc["name"] = name;
  const std::string problems = problems_of(doc);
  EXPECT_NE(problems.find("is not a scenario name"), std::string::npos) << problems;
  EXPECT_NE(problems.find("\"a\xc3\xa9"), std::string::npos) << problems;
  EXPECT_NO_THROW((void)nlohmann::json(problems).dump()) << problems;
}

TEST(ResolveTransformSpec, ShortNamesPointIntoThePluginFolder) {
  EXPECT_EQ(resolve_transform_spec("double:double_it", "/p"), "/p/libgraft_double_transform.so:double_it");
  EXPECT_EQ(resolve_transform_spec("builtin:reshard", "/p"), "builtin:reshard");
  EXPECT_EQ(resolve_transform_spec("builtin:reshard:dim=1", "/p"), "builtin:reshard:dim=1");
  EXPECT_EQ(resolve_transform_spec("libx.so:f", "/p"), "libx.so:f");
  EXPECT_EQ(resolve_transform_spec("/abs/libx.so:f", "/p"), "/abs/libx.so:f");
  EXPECT_EQ(resolve_transform_spec("no_colon", "/p"), "no_colon");
}

TEST(ScenarioLoader, DevicesDefaultToCpuAndGoPerSideAndRank) {
  nlohmann::json d = good_document();
  EXPECT_EQ(parse_scenario(d, "test.json").baseline_devices, (std::vector<std::string>{"cpu", "cpu"}));
  d["device"] = "cuda";
  scenario s = parse_scenario(d, "test.json");
  EXPECT_EQ(s.baseline_devices, (std::vector<std::string>{"cuda", "cuda"}));
  EXPECT_EQ(s.target_devices, (std::vector<std::string>{"cuda"}));
  EXPECT_EQ(s.cuda_ranks(), 3);
  d["device"] = {{"baseline", {"cpu", "cuda"}}};
  s = parse_scenario(d, "test.json");
  EXPECT_EQ(s.baseline_devices, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_EQ(s.target_devices, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(s.cuda_ranks(), 1);
  d["absent"] = {"baseline"};
  EXPECT_EQ(parse_scenario(d, "test.json").cuda_ranks(), 0);  // absent ranks make no tensors
}

TEST(ScenarioLoader, AnUnknownDeviceNamesItsPathAndTheChoices) {
  nlohmann::json d = good_document();
  d["device"] = {{"baseline", {"cpu", "gpu"}}, {"target", "cuda"}, {"host", "cpu"}};
  const std::string what = problems_of(d);
  EXPECT_NE(what.find("device.baseline[1]: unknown device \"gpu\"; expected \"cpu\" or \"cuda\""),
            std::string::npos) << what;
  EXPECT_NE(what.find("device.host"), std::string::npos) << what;
  d["device"] = {{"baseline", {"cuda"}}};
  EXPECT_NE(problems_of(d).find("device.baseline: expected one device per rank of this side (2), got 1"),
            std::string::npos) << problems_of(d);
}

TEST(ScenarioLoader, GoldenAndBackend) {
  nlohmann::json d = good_document();
  scenario s = parse_scenario(d, "test.json");
  EXPECT_TRUE(s.golden);
  EXPECT_EQ(s.backend(), "gloo");
  d["golden"] = false;
  d["grafter"]["backend"] = "nccl";
  s = parse_scenario(d, "test.json");
  EXPECT_FALSE(s.golden);
  EXPECT_EQ(s.backend(), "nccl");
  d["golden"] = "no";
  EXPECT_NE(problems_of(d).find("golden: expected true or false"), std::string::npos) << problems_of(d);
}

}  // namespace
}  // namespace graft::harness
