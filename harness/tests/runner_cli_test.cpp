// The real `graft` executable on real files: exit codes and messages of diff,
// update and run on bad input, and tampering with every golden snapshot.

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include <graft/harness/scenario.hpp>
#include <graft/harness/snapshot.hpp>

#include "cli_driver.hpp"

namespace graft::harness {
namespace {

using testing::graft;
using testing::kOutsideCi;
using testing::pid_written_to;
using testing::process_gone;
using testing::quoted;
using testing::read_file;
using testing::scenario_copy;
using testing::temp_dir;

std::vector<std::filesystem::path> goldens() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(GRAFT_FIXTURES "/snapshots")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every event has a kind: changing the first one's is a string change at a known path.
void tamper_string(nlohmann::json& snapshot) { snapshot["events"][0]["kind"] = "tampered"; }

TEST(GraftCli, HelpOnEveryCommandExitsZero) {
  temp_dir dir;
  for (const char* command :
       {"--help", "run --help", "diff --help", "review --help", "update --help", "list --help", "plugins --help"}) {
    const auto r = graft(dir, command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << command;
  }
}

TEST(GraftCli, UsageErrorsAreBadInput) {
  temp_dir dir;
  EXPECT_EQ(graft(dir, "").exit_code, 2);
  EXPECT_EQ(graft(dir, "diff only_one.json").exit_code, 2);
  for (const char* args : {"frobnicate", "--fixtures /tmp frobnicate list"}) {
    const auto r = graft(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.output.find("unknown command 'frobnicate'"), std::string::npos) << args << "\n" << r.output;
  }
  // A negative job count is a mistake, not "one per core".
  const auto jobs = graft(dir, "run -j -3 x");
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_NE(jobs.output.find("--jobs: Value -3 not in range 0 to 1024"), std::string::npos) << jobs.output;
}

TEST(GraftCli, EveryGoldenDiffsCleanAgainstItselfAndTamperingIsCaught) {
  temp_dir dir;
  const auto files = goldens();
  ASSERT_FALSE(files.empty()) << "no goldens in " GRAFT_FIXTURES "/snapshots";
  for (const auto& golden : files) {
    SCOPED_TRACE(golden.string());
    EXPECT_EQ(graft(dir, "diff " + quoted(golden) + " " + quoted(golden)).exit_code, 0);

    nlohmann::json changed = load_snapshot(golden);
    tamper_string(changed);
    write_snapshot(dir / "string.json", changed);
    const auto r = graft(dir, "diff " + quoted(golden) + " " + quoted(dir / "string.json"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("events[0].kind: expected"), std::string::npos) << r.output;

    nlohmann::json fewer = load_snapshot(golden);
    fewer["events"].erase(fewer["events"].size() - 1);
    write_snapshot(dir / "fewer.json", fewer);
    const auto removed = graft(dir, "diff " + quoted(golden) + " " + quoted(dir / "fewer.json"));
    EXPECT_EQ(removed.exit_code, 1);
    EXPECT_NE(removed.output.find("item missing in actual"), std::string::npos) << removed.output;
  }
}

TEST(GraftCli, NumbersInARealGoldenAreComparedWithTolerance) {
  temp_dir dir;
  const std::filesystem::path golden = GRAFT_FIXTURES "/snapshots/double_1x1.json";
  ASSERT_TRUE(std::filesystem::exists(golden));
  nlohmann::json snapshot = load_snapshot(golden);
  nlohmann::json* mean = nullptr;
  std::string path;
  for (std::size_t i = 0; i < snapshot["events"].size() && mean == nullptr; ++i) {
    if (snapshot["events"][i].contains("candidate")) {
      mean = &snapshot["events"][i]["candidate"]["mean"];
      path = "events[" + std::to_string(i) + "].candidate.mean";
    }
  }
  ASSERT_NE(mean, nullptr);
  const double original = mean->get<double>();

  *mean = original * (1 + 1e-7);  // inside fp32's rtol 1.3e-6
  write_snapshot(dir / "within.json", snapshot);
  EXPECT_EQ(graft(dir, "diff " + quoted(golden) + " " + quoted(dir / "within.json")).exit_code, 0);

  *mean = original + 0.5;
  write_snapshot(dir / "beyond.json", snapshot);
  const auto r = graft(dir, "diff " + quoted(golden) + " " + quoted(dir / "beyond.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(path + ": expected"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("|Δ|=0.5 > tol"), std::string::npos) << r.output;
}

TEST(GraftCli, DiffOfBadFilesIsExitTwoNamingTheFile) {
  temp_dir dir;
  const auto golden = goldens().front();
  const auto r = graft(dir, "diff " + quoted(dir / "absent.json") + " " + quoted(golden));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("absent.json"), std::string::npos) << r.output;
}

TEST(GraftCli, DiffNamesTheFileOfEveryKindOfBadSnapshot) {
  temp_dir dir;
  const auto golden = goldens().front();
  const auto folder = graft(dir, "diff " + quoted(dir.path()) + " " + quoted(golden));
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.output.find(": is a folder; pass a snapshot file"), std::string::npos) << folder.output;
  const auto device = graft(dir, "diff /dev/zero " + quoted(golden));
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.output.find("/dev/zero: is a character device, not a file; pass a snapshot file"),
            std::string::npos)
      << device.output;

  nlohmann::json snapshot = load_snapshot(golden);
  snapshot["tolerances"] = {{"events[*].mean", {{"rtol", -1}}}};
  write_snapshot(dir / "bad_tolerance.json", snapshot);
  const auto tolerance = graft(dir, "diff " + quoted(dir / "bad_tolerance.json") + " " + quoted(golden));
  EXPECT_EQ(tolerance.exit_code, 2);
  EXPECT_NE(tolerance.output.find("bad_tolerance.json: tolerances"), std::string::npos) << tolerance.output;

  snapshot.erase("tolerances");
  snapshot["schema_version"] = "1";
  write_snapshot(dir / "string_version.json", snapshot);
  const auto version = graft(dir, "diff " + quoted(dir / "string_version.json") + " " + quoted(golden));
  EXPECT_EQ(version.exit_code, 2);
  EXPECT_NE(version.output.find("string_version.json: schema_version \"1\" is not one this graft reads"),
            std::string::npos)
      << version.output;
}

TEST(GraftCli, RunWithAnInvalidScenarioIsBadInputListingEveryProblem) {
  temp_dir dir;
  dir.write("fixtures/scenarios/broken.json",
            R"({"schema_version": 1, "name": "broken", "world": {"baseline": 1, "target": "2"},
                "grafter": {}, "steps": [{"name": "x", "baseline": {"tensor": {"shape": "3", "fill": 1}},
                                         "target": {"skip": true}}]})");
  const auto r = graft(dir, "run --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(dir / "reports"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("world.target: expected an integer, got a string \"2\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("steps[0].baseline.tensor.shape: expected an array of ints >= 0, got \"3\""),
            std::string::npos)
      << r.output;
  EXPECT_EQ(graft(dir, "run no_such_scenario --fixtures " + quoted(dir / "fixtures")).exit_code, 2);
}

// Only a snapshot becomes a golden: a pending file without events is refused.
TEST(GraftCli, UpdateRefusesAPendingFileThatIsNoSnapshot) {
  temp_dir dir;
  dir.write("reports/snapshots/s.pending.json", R"({"schema_version": 1})");
  const std::string where = " --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(dir / "reports");
  const auto r = graft(dir, "update s" + where, "CI=false");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("s.pending.json: no \"events\" array"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "fixtures/snapshots/s.json"));
}

TEST(GraftCli, UpdateUnderCiWritesNothing) {
  temp_dir dir;
  write_snapshot(dir / "reports/snapshots/s.pending.json", {{"schema_version", 1}, {"events", nlohmann::json::array()}});
  const std::string where = " --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(dir / "reports");
  const auto refused = graft(dir, "update" + where, "CI=true");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("graft update: refusing to write goldens under CI"), std::string::npos)
      << refused.output;
  EXPECT_EQ(refused.output.find("graft update: graft update"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "fixtures/snapshots/s.json"));
  const auto accepted = graft(dir, "update s" + where, "CI=false");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "fixtures/snapshots/s.json"));
}

TEST(GraftCli, RunPassesAScenarioMatchingItsGolden) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  const auto r = graft(dir, "run double_1x1" + where, "CI=true");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[1/1] double_1x1 ... pass"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 scenario: 1 passed, 0 failed, 0 errors"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/snapshots/double_1x1.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/summary.json"));
}

TEST(GraftCli, RunFailsOnAnUnmetExpectationSayingWhatDiffered) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json& doc) {
    doc["steps"][0]["target"]["expect"]["equals"]["scale"] = 3;
  });
  const auto r = graft(dir, "run double_1x1" + where, "CI=true");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("steps[0] 'x' target rank 0: expected 3.0 x baseline rank 0"), std::string::npos)
      << r.output;
}

// A `from` spec's values exist only on the rank, after the grafts before it:
// x is [2, 4, 6, 8] there, and a quarter of it has no int32 value at 0 and 2.
TEST(GraftCli, AFromSpecGivingValuesItsDtypeCannotHoldIsAnErrorNamingTheStep) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json& doc) {
    doc["steps"][1]["target"]["tensor"] = {{"from", "x"}, {"dtype", "int32"}, {"scale", 0.25}};
  });
  const auto r = graft(dir, "run double_1x1" + where, "CI=true");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("target-0 exit 3: steps[1] 'not_matched': tensor.from: \"x\" * 0.25 + 0.0, element 0: "
                          "0.5 is not a whole number, and an int32 tensor would truncate it; use a whole number "
                          "(2 of 4 elements cannot be held)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("0 passed, 0 failed, 1 errors"), std::string::npos) << r.output;
}

TEST(GraftCli, RunFailsOnATamperedGoldenAndWritesAPendingOutsideCi) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  const auto golden = dir / "fixtures/snapshots/double_1x1.json";
  nlohmann::json tampered = load_snapshot(golden);
  tamper_string(tampered);
  write_snapshot(golden, tampered);
  const std::string before = read_file(golden);
  const auto r = graft(dir, "run double_1x1" + where, kOutsideCi);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("snapshot differs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("events[0].kind: expected \"tampered\", actual \"group_init\""), std::string::npos)
      << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "reports/snapshots/double_1x1.pending.json"));
  // The diff also stays beside the run, for the report page.
  EXPECT_NE(read_file(dir / "reports/runs/double_1x1/diff.txt").find("events[0].kind: expected \"tampered\""),
            std::string::npos);
  EXPECT_EQ(read_file(golden), before);
}

TEST(GraftCli, AScenarioNamedTwiceRunsOnce) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  const auto r = graft(dir, "run double_1x1 " + quoted(dir / "fixtures/scenarios/double_1x1.json") + " -j 2" + where,
                       "CI=true");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 scenario: 1 passed, 0 failed, 0 errors"), std::string::npos) << r.output;
}

TEST(GraftCli, TwoScenariosOfOneNameAreBadInput) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::copy_file(dir / "fixtures/scenarios/double_1x1.json", dir / "elsewhere/double_1x1.json");
  const auto r = graft(dir, "run double_1x1 " + quoted(dir / "elsewhere/double_1x1.json") + where, "CI=true");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("two scenarios are named 'double_1x1'"), std::string::npos) << r.output;
}

// A worker, plugins folder or reports folder that would fail every scenario
// alike is named, with its fix, before any scenario starts.
TEST(GraftCli, RunWithAnUnusableWorkerPluginsOrReportsPathIsBadInputBeforeAnyScenario) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  dir.write("not_a_program", "#!/bin/sh\n");
  dir.write("snapshots_a_file/snapshots", "");
  dir.write("runs_a_file/runs", "");
  std::filesystem::create_directories(dir / "summary_a_folder/summary.json");
  const struct {
    std::string flag;
    std::filesystem::path path;
    std::string complaint;
  } cases[] = {
      {"--worker", dir / "missing_worker", "no such file"},
      {"--worker", dir / "not_a_program", "cannot be executed (Permission denied)"},
      {"--worker", dir / "fixtures", "not a file"},
      {"--plugins", dir / "missing_plugins", "not a folder"},
      {"--reports", dir / "not_a_program/reports", "cannot create this folder (Not a directory)"},
      {"--reports", dir / "snapshots_a_file", (dir / "snapshots_a_file/snapshots").string() + " is not a folder"},
      {"--reports", dir / "runs_a_file", (dir / "runs_a_file/runs").string() + " is not a folder"},
      {"--reports", dir / "summary_a_folder",
       (dir / "summary_a_folder/summary.json").string() + " is a folder, not a file"},
  };
  for (const auto& c : cases) {
    // CLI11 takes an option once; the case's --reports replaces the copy's.
    const std::string options = c.flag == "--reports" ? " --fixtures " + quoted(dir / "fixtures") : where;
    const auto r = graft(dir, "run double_1x1" + options + " " + c.flag + " " + quoted(c.path), "CI=true");
    EXPECT_EQ(r.exit_code, 2) << c.flag << "\n" << r.output;
    EXPECT_NE(r.output.find("graft run: " + c.flag + " " + quoted(c.path) + ": " + c.complaint), std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("[1/1]"), std::string::npos) << "no scenario starts\n" << r.output;
  }
}

// A run writes each snapshot before it compares it: were that the goldens'
// folder, a changed golden would be overwritten by the run and pass.
TEST(GraftCli, RunRefusesAReportsFolderWhoseSnapshotsAreTheGoldens) {
  temp_dir dir;
  scenario_copy(dir, "double_1x1", [](nlohmann::json&) {});
  const auto golden = dir / "fixtures/snapshots/double_1x1.json";
  nlohmann::json changed = load_snapshot(golden);
  changed["events"][0]["kind"] = "changed_by_hand";
  write_snapshot(golden, changed);
  std::filesystem::create_directories(dir / "linked");
  std::filesystem::create_directory_symlink(dir / "fixtures/snapshots", dir / "linked/snapshots");
  for (const auto& reports : {dir / "fixtures", dir / "fixtures/../fixtures/", dir / "linked"}) {
    const auto r = graft(dir, "run double_1x1 --fixtures " + quoted(dir / "fixtures") + " --reports " + quoted(reports),
                         "CI=true");
    EXPECT_EQ(r.exit_code, 2) << reports << "\n" << r.output;
    EXPECT_NE(r.output.find("graft run: --reports " + quoted(reports) + ": its snapshots/ is the goldens' folder"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("[1/1]"), std::string::npos) << "no scenario starts\n" << r.output;
  }
  EXPECT_EQ(load_snapshot(golden), changed);
  const auto apart = graft(dir, "run double_1x1 --fixtures " + quoted(dir / "fixtures") + " --reports " +
                                    quoted(dir / "reports"),
                           "CI=true");
  EXPECT_EQ(apart.exit_code, 1) << "the changed golden is caught\n" << apart.output;
}

// Children lead process groups of their own, so a terminal's Ctrl-C or a
// job runner's SIGTERM reaches only graft: it kills them before it dies.
// graft --reports DIR is the reports folder of every command that writes
// one, localize's too; localize's own --reports is the more specific.
TEST(GraftCli, LocalizeWritesUnderGraftsReportsFolderUnlessGivenItsOwn) {
  temp_dir dir;
  const auto outer = graft(dir, "--reports " + quoted(dir / "outer") + " localize --layers 1 --name outer_only");
  EXPECT_EQ(outer.exit_code, 0) << outer.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "outer/localize/outer_only/report.json")) << outer.output;

  const auto both = graft(dir, "--reports " + quoted(dir / "outer") + " localize --reports " +
                                   quoted(dir / "inner") + " --layers 1 --name both");
  EXPECT_EQ(both.exit_code, 0) << both.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "inner/localize/both/report.json")) << both.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "outer/localize/both")) << both.output;
}

TEST(GraftCli, ATerminationSignalKillsWhatTheRanksStarted) {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    temp_dir dir;
    // The temp folder's path has no quotes or spaces to escape.
    const auto rank = [&](const std::string& name) {
      return "'sleep 140 & echo $! > " + (dir / name).string() + "; wait'";
    };
    const std::string command = "'" GRAFT_CLI "' localize --reports " + quoted(dir / "reports") +
                                " --timeout 100 --baseline-cmd " + rank("baseline") + " --target-cmd " +
                                rank("target") + " > /dev/null 2>&1 & echo $! > " + quoted(dir / "graft");
    ASSERT_EQ(std::system(command.c_str()), 0);
    const pid_t graft = pid_written_to(dir / "graft");
    const pid_t baseline = pid_written_to(dir / "baseline");
    const pid_t target = pid_written_to(dir / "target");
    ASSERT_GT(graft, 0);
    ASSERT_GT(baseline, 0);
    ASSERT_GT(target, 0);
    ::kill(graft, signal_number);
    EXPECT_TRUE(process_gone(graft)) << "graft survived signal " << signal_number;
    EXPECT_TRUE(process_gone(baseline)) << "the baseline's sleep outlived graft (signal " << signal_number << ")";
    EXPECT_TRUE(process_gone(target)) << "the target's sleep outlived graft (signal " << signal_number << ")";
  }
}

TEST(GraftCli, RunKillsStragglersAtTheScenarioTimeout) {
  temp_dir dir;
  // The target never starts and the grafter would wait 20 s; the scenario allows 1 s.
  const std::string where = scenario_copy(dir, "peer_never_arrives", [](nlohmann::json& doc) {
    doc["grafter"]["timeout"] = 20;
    doc["timeout_s"] = 1;
  });
  const auto r = graft(dir, "run peer_never_arrives" + where, "CI=true");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("peer_never_arrives ... HANG"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("timed out after 1 s (the scenario's timeout_s); killed baseline-0"), std::string::npos)
      << r.output;
}

TEST(GraftCli, APythonThatCannotPlayStopsTheRunBeforeAnyScenario) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "desync", [](nlohmann::json&) {});
  const auto missing = graft(dir, "run desync --grafter python --python " + quoted(dir / "no-python") + where);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("--python " + (dir / "no-python").string() +
                                ": graft's scenario worker for graft Python cannot start"),
            std::string::npos)
      << missing.output;
  EXPECT_EQ(missing.output.find("[1/1]"), std::string::npos) << missing.output;

  // A program that runs but is no Python with graft: its answer is the reason.
  const auto no_graft = graft(dir, "run desync --grafter sglang --python /bin/false" + where);
  EXPECT_EQ(no_graft.exit_code, 2) << no_graft.output;
  EXPECT_NE(no_graft.output.find("--python /bin/false: graft's scenario worker for sglang cannot start (exit 1)"),
            std::string::npos)
      << no_graft.output;

  const auto unknown = graft(dir, "run desync --grafter rust" + where);
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("rust"), std::string::npos) << unknown.output;
}

TEST(GraftCli, ListOfAMissingFixturesFolderIsBadInput) {
  temp_dir dir;
  const auto r = graft(dir, "--fixtures " + quoted(dir / "nowhere") + " list");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("nowhere/scenarios: cannot read this folder of scenarios"), std::string::npos) << r.output;
}

TEST(GraftCli, ListCallsNoGoldenObsoleteWhoseScenarioFailsToLoad) {
  temp_dir dir;
  const std::string where = scenario_copy(dir, "double_1x1", [](nlohmann::json& doc) { doc["timeout_s"] = "20"; });
  const auto r = graft(dir, "list" + where);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("timeout_s"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("obsolete"), std::string::npos) << r.output;
}

TEST(GraftCli, ListShowsEveryScenarioWithItsGolden) {
  temp_dir dir;
  const auto r = graft(dir, "list");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const auto& file : scenario_files(GRAFT_FIXTURES "/scenarios")) {
    EXPECT_NE(r.output.find(file.stem().string() + "  ["), std::string::npos) << file;
  }
  EXPECT_EQ(r.output.find("NO GOLDEN"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("obsolete"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace graft::harness
