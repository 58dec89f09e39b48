// The real `graft` executable on the snapshot workflow around a run: review
// (accept, reject, skip, non-interactive, colour), update --prune, obsolete
// goldens under CI, --version, and the machine-readable outputs (--json,
// --junit checked against the JUnit schema with xmllint).

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include <graft/harness/scenario.hpp>
#include <graft/harness/snapshot.hpp>

#include "cli_driver.hpp"

namespace graft::harness {
namespace {

using testing::graft;
using testing::kOutsideCi;
using testing::quoted;
using testing::read_file;
using testing::scenario_copy;
using testing::temp_dir;

nlohmann::json snapshot_of(const std::string& kind) {
  return {{"schema_version", 1}, {"events", {{{"kind", kind}}}}};
}

// Goldens and pending snapshots for three names: "changed" and "other" differ
// from their goldens, "fresh" has none.
std::string three_pending(const temp_dir& dir) {
  write_snapshot(dir / "fixtures/snapshots/changed.json", snapshot_of("old"));
  write_snapshot(dir / "reports/snapshots/changed.pending.json", snapshot_of("new"));
  write_snapshot(dir / "reports/snapshots/fresh.pending.json", snapshot_of("first"));
  write_snapshot(dir / "fixtures/snapshots/other.json", snapshot_of("old"));
  write_snapshot(dir / "reports/snapshots/other.pending.json", snapshot_of("newer"));
  return " --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(dir / "reports");
}

std::string first_kind(const std::filesystem::path& snapshot) {
  return load_snapshot(snapshot)["events"][0]["kind"].get<std::string>();
}

TEST(GraftReview, AnswersAcceptRejectAndSkipInTurn) {
  temp_dir dir;
  const std::string where = three_pending(dir);
  dir.write("answers.txt", "a\nmaybe\nr\ns\n");
  const auto r = graft(dir, "review" + where + " < " + quoted(dir / "answers.txt"), kOutsideCi);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // changed: its difference shown, then accepted.
  EXPECT_NE(r.output.find("changed (1 of 3)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("events[0].kind\n    - \"old\"\n    + \"new\""), std::string::npos) << r.output;
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/changed.json"), "new");
  EXPECT_FALSE(std::filesystem::exists(dir / "reports/snapshots/changed.pending.json"));
  // A word it does not know is asked again, not taken for an answer.
  EXPECT_NE(r.output.find("'maybe': answer a, r or s"), std::string::npos) << r.output;
  // fresh: shown whole as new, then rejected: no golden, pending gone.
  EXPECT_NE(r.output.find("new snapshot: no golden yet"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "fixtures/snapshots/fresh.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "reports/snapshots/fresh.pending.json"));
  // other: skipped, both files as they were.
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/other.json"), "old");
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/snapshots/other.pending.json"));
  EXPECT_NE(r.output.find("1 accepted, 1 rejected, 1 skipped"), std::string::npos) << r.output;
  // Not a terminal: no colour.
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
}

TEST(GraftReview, EndOfInputLeavesTheRestPending) {
  temp_dir dir;
  const std::string where = three_pending(dir);
  dir.write("answers.txt", "r\n");
  const auto r = graft(dir, "review" + where + " < " + quoted(dir / "answers.txt"), kOutsideCi);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("end of input: the rest stay pending"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 accepted, 1 rejected, 2 skipped"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/snapshots/fresh.pending.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/snapshots/other.pending.json"));
}

TEST(GraftReview, AcceptAndRejectDecideWithoutAsking) {
  temp_dir dir;
  const std::string where = three_pending(dir);
  const auto rejected = graft(dir, "review other --reject" + where + " < /dev/null", kOutsideCi);
  EXPECT_EQ(rejected.exit_code, 0) << rejected.output;
  EXPECT_EQ(rejected.output.find("accept (a)"), std::string::npos) << rejected.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "reports/snapshots/other.pending.json"));
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/other.json"), "old");

  const auto accepted = graft(dir, "review --accept" + where + " < /dev/null", kOutsideCi);
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_NE(accepted.output.find("2 accepted, 0 rejected, 0 skipped"), std::string::npos) << accepted.output;
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/changed.json"), "new");
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/fresh.json"), "first");

  const auto nothing = graft(dir, "review --accept" + where, kOutsideCi);
  EXPECT_EQ(nothing.exit_code, 0) << nothing.output;
  EXPECT_NE(nothing.output.find("nothing pending"), std::string::npos) << nothing.output;
  EXPECT_EQ(graft(dir, "review --accept --reject" + where, kOutsideCi).exit_code, 2);
}

TEST(GraftReview, RefusesUnderCiAndNamesAMissingPending) {
  temp_dir dir;
  const std::string where = three_pending(dir);
  const auto ci = graft(dir, "review --accept" + where, "CI=true");
  EXPECT_EQ(ci.exit_code, 2) << ci.output;
  EXPECT_NE(ci.output.find("refusing to review under CI"), std::string::npos) << ci.output;
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/changed.json"), "old");

  const auto missing = graft(dir, "review changed nosuch --accept" + where, kOutsideCi);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no pending snapshot for 'nosuch'"), std::string::npos) << missing.output;
  // Checked before any is touched.
  EXPECT_EQ(first_kind(dir / "fixtures/snapshots/changed.json"), "old");
}

// Colour on a terminal unless NO_COLOR says otherwise; --color decides over
// both. script(1) gives graft a terminal.
TEST(GraftReview, ColourOnATerminalHonoursNoColor) {
  if (std::system("command -v script > /dev/null") != 0) {
    FAIL() << "script(1) is missing (Debian: bsdutils); it gives graft a terminal for this test";
  }
  temp_dir dir;
  const std::string where = three_pending(dir);
  auto on_terminal = [&](const std::string& env, const std::string& args) {
    write_snapshot(dir / "reports/snapshots/changed.pending.json", snapshot_of("new"));
    const auto inner = dir.write("inner.sh", env + " '" GRAFT_CLI "' review changed --reject" + args + where + "\n");
    const std::string command =
        "script -qec \"sh " + quoted(inner) + "\" /dev/null > " + quoted(dir / "tty.txt") + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return read_file(dir / "tty.txt");
  };
  const std::string coloured = on_terminal("CI=", "");
  EXPECT_NE(coloured.find("\x1b[31m- \"old\""), std::string::npos) << coloured;
  EXPECT_EQ(on_terminal("CI= NO_COLOR=1", "").find('\x1b'), std::string::npos);
  EXPECT_NE(on_terminal("CI= NO_COLOR=1", " --color always").find('\x1b'), std::string::npos);
  EXPECT_EQ(on_terminal("CI=", " --color never").find('\x1b'), std::string::npos);
}

TEST(GraftUpdate, PruneDeletesObsoleteGoldensButKeepsABrokenScenarios) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  write_snapshot(dir / "fixtures/snapshots/gone.json", snapshot_of("old"));
  dir.write("fixtures/scenarios/broken.json", "{");
  write_snapshot(dir / "fixtures/snapshots/broken.json", snapshot_of("old"));

  const auto ci = graft(dir, "update --prune" + where, "CI=true");
  EXPECT_EQ(ci.exit_code, 2) << ci.output;
  EXPECT_NE(ci.output.find("refusing to delete goldens under CI"), std::string::npos) << ci.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "fixtures/snapshots/gone.json"));

  const auto r = graft(dir, "update --prune" + where, kOutsideCi);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 obsolete golden deleted"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "fixtures/snapshots/gone.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "fixtures/snapshots/broken.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "fixtures/snapshots/double_1x1.json"));
  EXPECT_EQ(graft(dir, "update double_1x1 --prune" + where, kOutsideCi).exit_code, 2);
}

TEST(GraftRun, AnObsoleteGoldenFailsAWholeRunUnderCiOnly) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  write_snapshot(dir / "fixtures/snapshots/gone.json", snapshot_of("old"));
  const auto ci = graft(dir, "run" + where, "CI=true");
  EXPECT_EQ(ci.exit_code, 1) << ci.output;
  EXPECT_NE(ci.output.find("obsolete golden (no scenario): " + (dir / "fixtures/snapshots/gone.json").string() +
                           "; fails the run under CI; delete it with graft update --prune"),
            std::string::npos)
      << ci.output;
  const auto local = graft(dir, "run" + where, kOutsideCi);
  EXPECT_EQ(local.exit_code, 0) << local.output;
  EXPECT_NE(local.output.find("obsolete golden (no scenario)"), std::string::npos) << local.output;
  // Naming scenarios is no whole run: nothing is known about the others.
  EXPECT_EQ(graft(dir, "run double_1x1" + where, "CI=true").exit_code, 0);
}

TEST(GraftRun, JsonOnStdoutAndJunitThatValidates) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  scenario_copy(dir, "dtype_cast_bf16",
                [](nlohmann::json& doc) { doc["steps"][0]["target"]["expect"]["values"] = {9, 9, 9, 9}; });
  const auto junit = dir / "out/junit.xml";
  const auto r = graft(dir, "run double_1x1 dtype_cast_bf16 --json --junit " + quoted(junit) + where, "CI=true",
                       /*stdout_only=*/true);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_FALSE(doc["graft_version"].get<std::string>().empty());
  ASSERT_EQ(doc["scenarios"].size(), 2u) << r.output;
  EXPECT_EQ(doc["scenarios"][0]["name"], "double_1x1");
  EXPECT_EQ(doc["scenarios"][0]["result"], "pass");
  EXPECT_EQ(doc["scenarios"][1]["result"], "fail");

  const std::string xml = read_file(junit);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"graft.scenarios\" name=\"dtype_cast_bf16\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\""), std::string::npos) << xml;
  const std::string validate = "xmllint --noout --schema '" GRAFT_JUNIT_XSD "' " + quoted(junit) + " 2>&1";
  EXPECT_EQ(std::system(validate.c_str()), 0) << "xmllint (Debian: libxml2-utils) rejects " << junit << ":\n" << xml;
}

TEST(GraftList, JsonNamesEveryScenarioWithItsGolden) {
  temp_dir dir;
  const auto r = graft(dir, "list --json", "", /*stdout_only=*/true);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["scenarios"].size(), scenario_files(GRAFT_FIXTURES "/scenarios").size());
  for (const auto& s : doc["scenarios"]) {
    EXPECT_NE(s["golden"], "missing") << s.dump();
    EXPECT_TRUE(s["baseline_world_size"].get<int>() >= 1) << s.dump();
  }
  EXPECT_TRUE(doc["obsolete_goldens"].empty());
}

TEST(GraftDiff, JsonListsEachDifference) {
  temp_dir dir;
  write_snapshot(dir / "a.json", snapshot_of("old"));
  write_snapshot(dir / "b.json", snapshot_of("new"));
  const auto r = graft(dir, "diff --json " + quoted(dir / "a.json") + " " + quoted(dir / "b.json"), "", true);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_FALSE(doc["same"].get<bool>());
  ASSERT_EQ(doc["differences"].size(), 1u);
  EXPECT_EQ(doc["differences"][0]["path"], "events[0].kind");
  EXPECT_EQ(doc["differences"][0]["expected"], "\"old\"");
  const auto bad = graft(dir, "diff --json " + quoted(dir / "a.json") + " " + quoted(dir / "none.json"), "", true);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(bad.output)["problems"].size(), 1u) << bad.output;
}

// A Linux path may be any bytes; --json still prints JSON, the byte as U+FFFD.
TEST(GraftDiff, JsonCarriesAPathThatIsNotUtf8) {
  temp_dir dir;
  write_snapshot(dir / "a.json", snapshot_of("old"));
  const auto r = graft(dir, "diff --json " + quoted(dir / "a.json") + " " + quoted(dir / "b\xff.json"), "", true);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const auto problems = nlohmann::json::parse(r.output)["problems"];
  ASSERT_EQ(problems.size(), 1u) << r.output;
  EXPECT_NE(problems[0].get<std::string>().find("b\xEF\xBF\xBD.json"), std::string::npos) << r.output;
}

TEST(GraftCli, VersionNamesTheProjectVersion) {
  temp_dir dir;
  const auto r = graft(dir, "--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("graft " GRAFT_PROJECT_VERSION, 0), 0u) << r.output;
}

}  // namespace
}  // namespace graft::harness
