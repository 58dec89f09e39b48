#include <chrono>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <graft/harness/errors.hpp>

#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

using testing::temp_dir;

// A snapshot shaped like the ones graft run writes.
nlohmann::json sample_snapshot() {
  snapshot_input input;
  input.scenario = "sample";
  input.baseline_world_size = 1;
  input.target_world_size = 1;
  input.events = {
      {{"graft_rank", 0}, {"kind", "send"}, {"tensor", {{"dtype", "float32"}, {"mean", 2.5}, {"shape", {4}}}}},
      {{"graft_rank", 1},
       {"kind", "recv_grafted"},
       {"transform", "double_it"},
       {"before", {{"dtype", "bfloat16"}, {"mean", 1.0}}},
       {"metrics", {{"rel_diff", 0.25}, {"max_abs", 8.0}, {"cosine", "NaN"}, {"numel", 4}}}},
      {{"graft_rank", 1}, {"kind", "recv_skipped"}, {"error_kind", "shape_mismatch"}}};
  return make_snapshot(input, {});
}

TEST(DiffJson, IdenticalSnapshotsHaveNoDifferences) {
  EXPECT_TRUE(diff_snapshots(sample_snapshot(), sample_snapshot()).empty());
}

TEST(DiffJson, AStringChangeIsReportedWithItsPath) {
  nlohmann::json actual = sample_snapshot();
  actual["events"][1]["transform"] = "triple_it";
  const auto diffs = diff_snapshots(sample_snapshot(), actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[1].transform");
  EXPECT_EQ(diffs[0].expected, "\"double_it\"");
  EXPECT_EQ(diffs[0].actual, "\"triple_it\"");
}

TEST(DiffJson, LongStringsAreShownAroundTheirFirstDifference) {
  const std::string head(200, 'a');
  nlohmann::json expected = sample_snapshot();
  nlohmann::json actual = sample_snapshot();
  expected["events"][2]["message"] = head + " matched BOTH b2t_filter and t2b_filter";
  actual["events"][2]["message"] = head + " matched ALL OF b2t_filter and t2b_filter";
  const auto diffs = diff_snapshots(expected, actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].detail, "strings differ at character 209");
  EXPECT_NE(diffs[0].expected.find("BOTH"), std::string::npos) << diffs[0].expected;
  EXPECT_NE(diffs[0].actual.find("ALL OF"), std::string::npos) << diffs[0].actual;
  EXPECT_EQ(diffs[0].actual.substr(0, 4), "...\"");
}

TEST(DiffJson, Fp32NumbersWithinToleranceAreEqualAndBeyondAreNot) {
  nlohmann::json within = sample_snapshot();
  within["events"][0]["tensor"]["mean"] = 2.5 * (1 + 1e-7);
  EXPECT_TRUE(diff_snapshots(sample_snapshot(), within).empty());

  nlohmann::json beyond = sample_snapshot();
  beyond["events"][0]["tensor"]["mean"] = 2.5001;
  const auto diffs = diff_snapshots(sample_snapshot(), beyond);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[0].tensor.mean");
  EXPECT_NE(diffs[0].detail.find("|Δ|=0.0001"), std::string::npos) << diffs[0].detail;
  EXPECT_NE(diffs[0].detail.find("float32"), std::string::npos) << diffs[0].detail;
}

TEST(DiffJson, TheEnclosingDtypeChoosesTheDefaultTolerance) {
  // 1% off: inside bf16's rtol 1.6e-2, far outside fp32's.
  nlohmann::json actual = sample_snapshot();
  actual["events"][1]["before"]["mean"] = 1.01;
  EXPECT_TRUE(diff_snapshots(sample_snapshot(), actual).empty());
  actual["events"][0]["tensor"]["mean"] = 2.5 * 1.01;
  ASSERT_EQ(diff_snapshots(sample_snapshot(), actual).size(), 1u);
}

TEST(DiffJson, ToleranceOverridesByPathGlobComeFromTheExpectedSnapshot) {
  nlohmann::json expected = sample_snapshot();
  nlohmann::json actual = sample_snapshot();
  actual["events"][1]["metrics"]["rel_diff"] = 0.26;
  EXPECT_EQ(diff_snapshots(expected, actual).size(), 1u);
  expected["tolerances"] = {{"events[*].metrics.rel_diff", {{"rtol", 0}, {"atol", 0.02}}}};
  actual["tolerances"] = expected["tolerances"];
  EXPECT_TRUE(diff_snapshots(expected, actual).empty());
}

TEST(DiffJson, IntegersCompareExactly) {
  nlohmann::json actual = sample_snapshot();
  actual["events"][1]["metrics"]["numel"] = 5;
  const auto diffs = diff_snapshots(sample_snapshot(), actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[1].metrics.numel");
}

TEST(DiffJson, AnIntegerThatBecameAFloatIsADifferenceWhateverItsValue) {
  for (const double value : {4.0, 4.0000001}) {
    nlohmann::json actual = sample_snapshot();
    actual["events"][1]["metrics"]["numel"] = value;
    actual["events"][0]["tensor"]["shape"][0] = value;
    const auto diffs = diff_snapshots(sample_snapshot(), actual);
    ASSERT_EQ(diffs.size(), 2u) << value;
    EXPECT_EQ(diffs[0].path, "events[0].tensor.shape[0]");
    EXPECT_EQ(diffs[1].path, "events[1].metrics.numel");
    EXPECT_NE(diffs[1].detail.find("an integer on one side, a float on the other"), std::string::npos) << diffs[1].detail;
  }
}

TEST(DiffJson, NanEqualsNanButNotANumber) {
  const tolerance_policy policy;
  EXPECT_TRUE(diff_json(nlohmann::json{{"v", "NaN"}}, nlohmann::json{{"v", "NaN"}}, policy).empty());
  EXPECT_TRUE(diff_json(nlohmann::json{{"v", "Inf"}}, nlohmann::json{{"v", "Inf"}}, policy).empty());
  EXPECT_EQ(diff_json(nlohmann::json{{"v", "NaN"}}, nlohmann::json{{"v", 1.0}}, policy).size(), 1u);
  EXPECT_EQ(diff_json(nlohmann::json{{"v", 1.0}}, nlohmann::json{{"v", "NaN"}}, policy).size(), 1u);
  EXPECT_EQ(diff_json(nlohmann::json{{"v", "Inf"}}, nlohmann::json{{"v", 1e308}}, policy).size(), 1u);
  EXPECT_EQ(diff_json(nlohmann::json{{"v", "Inf"}}, nlohmann::json{{"v", "-Inf"}}, policy).size(), 1u);
}

TEST(DiffJson, ARemovedEventIsOneMissingItemNotAShiftOfTheRest) {
  nlohmann::json actual = sample_snapshot();
  actual["events"].erase(1);
  const auto diffs = diff_snapshots(sample_snapshot(), actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[1]");
  EXPECT_EQ(diffs[0].actual, "(missing)");
  EXPECT_NE(diffs[0].expected.find("event recv_grafted (graft_rank 1)"), std::string::npos) << diffs[0].expected;
}

nlohmann::json long_log(std::size_t events) {
  nlohmann::json log = {{"schema_version", 1}, {"events", nlohmann::json::array()}};
  for (std::size_t i = 0; i < events; ++i) {
    log["events"].push_back({{"graft_rank", 0}, {"kind", "recv_grafted"}, {"name", "x" + std::to_string(i)}});
  }
  return log;
}

// A long log aligns its unchanged head and tail by position: one removed
// event among 20000 is one missing item (an LCS over all of it would compare
// 4e8 pairs).
TEST(DiffJson, OneRemovedEventInALongLogIsOneMissingItem) {
  nlohmann::json actual = long_log(20000);
  actual["events"].erase(12345);
  const auto diffs = diff_snapshots(long_log(20000), actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[12345]");
  EXPECT_EQ(diffs[0].actual, "(missing)");
}

// A changed middle too large to realign is compared by position: nothing is
// lost, every changed event is still reported.
TEST(DiffJson, AHugeChangedMiddleIsComparedByPosition) {
  nlohmann::json actual = long_log(3000);
  for (std::size_t i = 1; i + 1 < 3000; ++i) actual["events"][i]["kind"] = "recv_skipped";
  const auto diffs = diff_snapshots(long_log(3000), actual);
  ASSERT_EQ(diffs.size(), 2998u);
  EXPECT_EQ(diffs.front().path, "events[1].kind");
  EXPECT_EQ(diffs.back().path, "events[2998].kind");
}

TEST(DiffJson, AnAddedEventIsOneExtraItem) {
  nlohmann::json actual = sample_snapshot();
  actual["events"].push_back({{"graft_rank", 1}, {"kind", "desync"}});
  const auto diffs = diff_snapshots(sample_snapshot(), actual);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "events[3]");
  EXPECT_EQ(diffs[0].expected, "(missing)");
}

TEST(DiffJson, MissingAndExtraKeysAndTypeChangesAreNamed) {
  nlohmann::json actual = sample_snapshot();
  actual["events"][2].erase("error_kind");
  actual["events"][2]["message"] = "new";
  actual["events"][0]["tensor"]["shape"] = "4";
  const auto text = format_differences(diff_snapshots(sample_snapshot(), actual));
  EXPECT_NE(text.find("events[0].tensor.shape: expected [4], actual \"4\" (type differs: array vs string)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("events[2].error_kind: expected \"shape_mismatch\", actual (missing)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("events[2].message: expected (missing), actual \"new\""), std::string::npos) << text;
}

TEST(DiffJson, FormatCapsTheNumberOfLines) {
  std::vector<difference> diffs(5, difference{"p", "1", "2", ""});
  const std::string text = format_differences(diffs, 2);
  EXPECT_NE(text.find("... and 3 more"), std::string::npos);
}

// graft diff --json writes every difference as JSON strings, and JSON's
// writer throws on a UTF-8 sequence cut in two: string excerpts and shortened
// values are cut between characters (fuzz/corpus/snapshot/regress-*-utf8.json).
TEST(DiffJson, ExcerptsAndShortenedValuesAreCutBetweenCharacters) {
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";  // é
  nlohmann::json expected = sample_snapshot();
  nlohmann::json actual = sample_snapshot();
  expected["events"][0]["note"] = "a" + accents;  // missing in actual: shown shortened
  expected["events"][2]["message"] = accents + "A" + accents;
  actual["events"][2]["message"] = accents + "B" + accents;
  std::vector<difference> diffs;
  ASSERT_NO_THROW(diffs = diff_snapshots(expected, actual));
  ASSERT_EQ(diffs.size(), 2u) << format_differences(diffs);
  EXPECT_EQ(diffs[0].path, "events[0].note");
  EXPECT_EQ(diffs[1].detail, "strings differ at character 80");
  file_diff result;
  result.exit_code = 1;
  result.differences = diffs;
  EXPECT_NO_THROW((void)to_json(result, "expected.json", "actual.json").dump()) << format_differences(diffs);
}

// The alignment asks whether two events are the same of up to 4M pairs; the
// answer stops at the first difference and formats nothing, so that events
// that differ deep inside (arrays of objects in arrays of objects) align in
// moments: this took minutes when each answer wrote out every difference
// (fuzz/corpus/snapshot/regress-nested-alignment-is-slow.json).
TEST(DiffJson, EventsThatDifferDeepInsideAlignQuickly) {
  const auto events = [](int shift) {
    nlohmann::json list = nlohmann::json::array();
    for (int i = 0; i < 16; ++i) {
      nlohmann::json items = nlohmann::json::array();
      for (int j = 0; j < 16; ++j) {
        nlohmann::json values = nlohmann::json::array();
        for (int k = 0; k < 16; ++k) values.push_back({{"v", k + shift}});
        items.push_back({{"j", j}, {"values", values}});
      }
      list.push_back({{"kind", "send"}, {"i", i}, {"items", items}});
    }
    return list;
  };
  nlohmann::json expected = sample_snapshot();
  nlohmann::json actual = sample_snapshot();
  expected["events"] = events(0);
  actual["events"] = events(100);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<difference> diffs = diff_snapshots(expected, actual);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(diffs.size(), 16u * 16u * 16u);
  EXPECT_EQ(diffs.front().path, "events[0].items[0].values[0].v");
  EXPECT_LT(took.count(), 5.0);  // 0.04 s in a Release build; 38 s before
}

TEST(PathGlob, StarStaysInOneSegmentDoubleStarCrossesThem) {
  EXPECT_TRUE(path_matches("events[*].metrics.rel_diff", "events[12].metrics.rel_diff"));
  EXPECT_FALSE(path_matches("events[*].metrics.rel_diff", "events[1].x.metrics.rel_diff"));
  EXPECT_TRUE(path_matches("**.rel_diff", "events[1].metrics.rel_diff"));
  EXPECT_TRUE(path_matches("events[*].*.mean", "events[0].before.mean"));
  EXPECT_FALSE(path_matches("events[*].*.mean", "events[0].before.max"));
}

// What a glob means, tried split by split: the reference for short paths.
bool matches_by_definition(std::string_view glob, std::string_view path) {
  if (glob.empty()) return path.empty();
  if (glob.substr(0, 2) == "**") {
    for (std::size_t skip = 0; skip <= path.size(); ++skip) {
      if (matches_by_definition(glob.substr(2), path.substr(skip))) return true;
    }
    return false;
  }
  if (glob[0] == '*') {
    for (std::size_t skip = 0; skip <= path.size(); ++skip) {
      if (matches_by_definition(glob.substr(1), path.substr(skip))) return true;
      if (skip < path.size() && path[skip] == '.') break;
    }
    return false;
  }
  return !path.empty() && glob[0] == path[0] && matches_by_definition(glob.substr(1), path.substr(1));
}

// Every string of the alphabet up to max_length characters long.
std::vector<std::string> strings_of(const std::string& alphabet, std::size_t max_length) {
  std::vector<std::string> out = {""};
  for (std::size_t begin = 0; out[begin].size() < max_length; ++begin) {
    for (const char c : alphabet) out.push_back(out[begin] + c);
  }
  return out;
}

TEST(PathGlob, AgreesWithTheDefinitionOnEveryShortGlobAndPath) {
  const auto paths = strings_of("a.b", 5);
  for (const std::string& glob : strings_of("a.*", 6)) {
    for (const std::string& path : paths) {
      ASSERT_EQ(path_matches(glob, path), matches_by_definition(glob, path)) << glob << " vs " << path;
    }
  }
}

// Trying every split for every star took time exponential in the stars: a
// golden's glob like this one hung graft diff (20 s for these four stars,
// hours for ten; fuzz/corpus/snapshot/regress-glob-stars-are-slow.json).
TEST(PathGlob, ManyStarsMatchQuickly) {
  const std::string path = "events[0]." + std::string(200, 'a');
  std::string glob;
  for (int i = 0; i < 4; ++i) glob += "**a";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(path_matches(glob + "**b", path));
  EXPECT_TRUE(path_matches(glob + "**", path));
  EXPECT_TRUE(path_matches("*." + glob, path));
  EXPECT_FALSE(path_matches("*a" + glob, path));  // `*` stops at the '.'
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 1.0);
}

TEST(TolerancePolicy, RejectsMalformedEntriesNamingTheKey) {
  EXPECT_THROW(tolerance_policy::from_json({{"x", {{"rtol", -1}}}}, "tolerances"), snapshot_error);
  try {
    tolerance_policy::from_json({{"x", {{"rtl", 1}}}}, "tolerances");
    FAIL() << "expected snapshot_error";
  } catch (const snapshot_error& e) {
    EXPECT_NE(std::string(e.what()).find("tolerances.x.rtl"), std::string::npos) << e.what();
  }
}

// graft diff on real files: a golden and a copy that a test tampers with.
class SnapshotFileDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    golden_ = dir_ / "golden.json";
    write_snapshot(golden_, sample_snapshot());
  }
  std::filesystem::path tampered(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json copy = load_snapshot(golden_);
    edit(copy);
    const auto path = dir_ / "actual.json";
    write_snapshot(path, copy);
    return path;
  }
  temp_dir dir_;
  std::filesystem::path golden_;
};

TEST_F(SnapshotFileDiff, SameFileIsExitZero) {
  const auto result = diff_snapshot_files(golden_, tampered([](nlohmann::json&) {}));
  EXPECT_EQ(result.exit_code, 0) << result.report;
}

TEST_F(SnapshotFileDiff, ChangedStringIsExitOneNamingThePath) {
  const auto result = diff_snapshot_files(golden_, tampered([](nlohmann::json& j) {
                                            j["events"][2]["error_kind"] = "transform_raised";
                                          }));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.report.find("events[2].error_kind: expected \"shape_mismatch\", actual \"transform_raised\""),
            std::string::npos)
      << result.report;
}

TEST_F(SnapshotFileDiff, NumberBeyondToleranceIsExitOne) {
  const auto result =
      diff_snapshot_files(golden_, tampered([](nlohmann::json& j) { j["events"][1]["metrics"]["max_abs"] = 8.01; }));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.report.find("events[1].metrics.max_abs"), std::string::npos) << result.report;
}

TEST_F(SnapshotFileDiff, NumberWithinToleranceIsExitZero) {
  const auto result = diff_snapshot_files(
      golden_, tampered([](nlohmann::json& j) { j["events"][1]["metrics"]["max_abs"] = 8.0 + 1e-6; }));
  EXPECT_EQ(result.exit_code, 0) << result.report;
}

TEST_F(SnapshotFileDiff, RemovedEventIsExitOneNamingIt) {
  const auto result = diff_snapshot_files(golden_, tampered([](nlohmann::json& j) { j["events"].erase(0); }));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.report.find("events[0]: expected event send (graft_rank 0)"), std::string::npos) << result.report;
}

TEST_F(SnapshotFileDiff, BadInputIsExitTwoNamingTheFile) {
  const auto missing = diff_snapshot_files(dir_ / "nope.json", golden_);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.report.find("nope.json"), std::string::npos);

  const auto invalid = diff_snapshot_files(dir_.write("broken.json", "{\"schema_version\": 1,"), golden_);
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.report.find("broken.json: invalid JSON"), std::string::npos) << invalid.report;

  const auto unversioned = diff_snapshot_files(golden_, dir_.write("plain.json", "{\"events\": []}"));
  EXPECT_EQ(unversioned.exit_code, 2);
  EXPECT_NE(unversioned.report.find("plain.json: not a graft snapshot"), std::string::npos) << unversioned.report;
}

// graft diff walks both documents recursively: one nested thousands of levels
// deep is bad input, not a crash.
TEST_F(SnapshotFileDiff, ASnapshotNestedTooDeepIsBadInput) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string document = "{\"schema_version\": 1, \"events\": [], \"x\": " + deep + "}";
  const auto result = diff_snapshot_files(golden_, dir_.write("deep.json", document));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.report.find("deep.json: it nests deeper than 64 levels"), std::string::npos)
      << result.report;
}

// A hand-edited golden that gives a key twice would otherwise be compared by
// its last value alone, the first dropped without a word.
TEST_F(SnapshotFileDiff, AGoldenGivingAKeyTwiceIsBadInput) {
  const std::string document = R"({"schema_version": 1, "events": [{"kind": "send", "kind": "send"}]})";
  const auto result = diff_snapshot_files(dir_.write("twice.json", document), golden_);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.report.find("twice.json: events[0].kind: the key is given twice in one object"),
            std::string::npos)
      << result.report;
}

// graft diff --json writes each problem as a JSON string: one that quotes the
// file's bytes shows a byte that is not UTF-8 as \xNN
// (fuzz/corpus/snapshot/regress-invalid-utf8-byte.json).
TEST_F(SnapshotFileDiff, ABadByteIsBadInputThatJsonCanCarry) {
  const auto bad = dir_.write("latin1.json", "{\"schema_version\": 1, \"events\": [\"caf\xe9\"]}");
  const auto result = diff_snapshot_files(bad, golden_);
  EXPECT_EQ(result.exit_code, 2);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_NE(result.problems[0].find("latin1.json: invalid JSON"), std::string::npos) << result.problems[0];
  EXPECT_NE(result.problems[0].find("caf\\xe9"), std::string::npos) << result.problems[0];
  EXPECT_NO_THROW((void)to_json(result, bad, golden_).dump()) << result.report;
}

TEST_F(SnapshotFileDiff, TwoBadFilesAreBothNamedInArgumentOrder) {
  const auto both = diff_snapshot_files(dir_ / "first.json", dir_.write("second.json", "{"));
  EXPECT_EQ(both.exit_code, 2);
  const std::size_t first = both.report.find("first.json: cannot read the file");
  const std::size_t second = both.report.find("second.json: invalid JSON");
  ASSERT_NE(first, std::string::npos) << both.report;
  ASSERT_NE(second, std::string::npos) << both.report;
  EXPECT_LT(first, second) << both.report;
}

}  // namespace
}  // namespace graft::harness
