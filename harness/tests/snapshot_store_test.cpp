#include <gtest/gtest.h>

#include <graft/harness/errors.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

using testing::temp_dir;

nlohmann::json snapshot_with(double mean) {
  return {{"schema_version", 1}, {"scenario", "s"}, {"events", {{{"kind", "send"}, {"mean", mean}}}}};
}

class SnapshotStore : public ::testing::Test {
 protected:
  temp_dir dir_;
  snapshot_dirs dirs_{dir_ / "fixtures/snapshots", dir_ / "reports/snapshots"};
};

TEST_F(SnapshotStore, MissingGoldenOutsideCiIsNewAndWrittenAsPendingOnly) {
  const auto check = check_snapshot(dirs_, "s", snapshot_with(1.0), false);
  EXPECT_EQ(check.outcome, snapshot_check::status::new_snapshot);
  EXPECT_TRUE(std::filesystem::exists(dirs_.pending_path("s")));
  EXPECT_TRUE(std::filesystem::exists(dirs_.actual_path("s")));
  EXPECT_FALSE(std::filesystem::exists(dirs_.golden_path("s")));
  EXPECT_NE(check.message().find("new snapshot, needs review"), std::string::npos);
}

TEST_F(SnapshotStore, MissingGoldenUnderCiFailsAndWritesNoPending) {
  const auto check = check_snapshot(dirs_, "s", snapshot_with(1.0), true);
  EXPECT_EQ(check.outcome, snapshot_check::status::missing_in_ci);
  EXPECT_FALSE(std::filesystem::exists(dirs_.pending_path("s")));
  EXPECT_FALSE(std::filesystem::exists(dirs_.golden_path("s")));
}

TEST_F(SnapshotStore, UpdateAcceptsPendingThenTheSameRunMatches) {
  check_snapshot(dirs_, "s", snapshot_with(1.0), false);
  EXPECT_EQ(pending_names(dirs_), std::vector<std::string>{"s"});
  EXPECT_EQ(accept_pending(dirs_, {}, false), std::vector<std::string>{"s"});
  EXPECT_FALSE(std::filesystem::exists(dirs_.pending_path("s")));
  EXPECT_EQ(check_snapshot(dirs_, "s", snapshot_with(1.0), false).outcome, snapshot_check::status::match);
}

TEST_F(SnapshotStore, MismatchWritesPendingAndNeverTouchesTheGolden) {
  write_snapshot(dirs_.golden_path("s"), snapshot_with(1.0));
  const std::string golden_before = testing::read_file(dirs_.golden_path("s"));
  const auto check = check_snapshot(dirs_, "s", snapshot_with(2.0), false);
  EXPECT_EQ(check.outcome, snapshot_check::status::mismatch);
  ASSERT_EQ(check.diffs.size(), 1u);
  EXPECT_EQ(check.diffs[0].path, "events[0].mean");
  EXPECT_TRUE(std::filesystem::exists(dirs_.pending_path("s")));
  EXPECT_EQ(testing::read_file(dirs_.golden_path("s")), golden_before);
  EXPECT_NE(check.message().find("graft update s"), std::string::npos);
  // A later matching run removes the stale pending file.
  EXPECT_EQ(check_snapshot(dirs_, "s", snapshot_with(1.0), false).outcome, snapshot_check::status::match);
  EXPECT_FALSE(std::filesystem::exists(dirs_.pending_path("s")));
}

TEST_F(SnapshotStore, MismatchUnderCiWritesNothingButTheActual) {
  write_snapshot(dirs_.golden_path("s"), snapshot_with(1.0));
  const auto check = check_snapshot(dirs_, "s", snapshot_with(2.0), true);
  EXPECT_EQ(check.outcome, snapshot_check::status::mismatch);
  EXPECT_FALSE(std::filesystem::exists(dirs_.pending_path("s")));
  EXPECT_TRUE(std::filesystem::exists(dirs_.actual_path("s")));
}

TEST_F(SnapshotStore, UpdateIsRefusedUnderCiAndForUnknownNames) {
  check_snapshot(dirs_, "s", snapshot_with(1.0), false);
  EXPECT_THROW(accept_pending(dirs_, {}, true), snapshot_error);
  EXPECT_FALSE(std::filesystem::exists(dirs_.golden_path("s")));
  try {
    accept_pending(dirs_, {"other"}, false);
    FAIL() << "expected snapshot_error";
  } catch (const snapshot_error& e) {
    EXPECT_NE(std::string(e.what()).find("no pending snapshot for 'other'"), std::string::npos) << e.what();
  }
}

// `graft update ../../x` must not write or delete outside the two folders.
TEST_F(SnapshotStore, UpdateRefusesNamesThatAreNotScenarioNames) {
  const std::filesystem::path outside = dirs_.output.parent_path() / "x.pending.json";
  write_snapshot(outside, snapshot_with(1.0));
  try {
    accept_pending(dirs_, {"../x"}, false);
    FAIL() << "expected snapshot_error";
  } catch (const snapshot_error& e) {
    EXPECT_NE(std::string(e.what()).find("'../x' is not a scenario name"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::exists(outside));
  EXPECT_FALSE(std::filesystem::exists(dirs_.golden.parent_path() / "x.json"));
}

TEST_F(SnapshotStore, GoldensWithoutAScenarioAreObsolete) {
  write_snapshot(dirs_.golden_path("kept"), snapshot_with(1.0));
  write_snapshot(dirs_.golden_path("gone"), snapshot_with(1.0));
  EXPECT_EQ(obsolete_goldens(dirs_, {"kept"}), std::vector<std::string>{"gone"});
}

TEST(IsCi, FollowsInstasRule) {
  EXPECT_FALSE(is_ci({}));
  EXPECT_TRUE(is_ci({{"CI", "true"}}));
  EXPECT_TRUE(is_ci({{"CI", "1"}}));
  EXPECT_FALSE(is_ci({{"CI", "false"}}));
  EXPECT_FALSE(is_ci({{"CI", "FALSE"}}));
  EXPECT_FALSE(is_ci({{"CI", "0"}}));
  EXPECT_FALSE(is_ci({{"CI", ""}}));
  EXPECT_TRUE(is_ci({{"TF_BUILD", "True"}}));
}

}  // namespace
}  // namespace graft::harness
