#include <gtest/gtest.h>

#include <graft/harness/redact.hpp>
#include <graft/harness/snapshot.hpp>

namespace graft::harness {
namespace {

TEST(Redact, VolatileKeysBecomePlaceholdersAtAnyDepth) {
  const nlohmann::json event = {{"time", 1733130000.25}, {"pid", 4242},     {"kind", "group_init"},
                                {"duration_s", 0.03},    {"master_port", 29517}, {"master_address", "127.0.0.1"},
                                {"inner", {{"hostname", "node-7"}, {"time", 3.0}}}};
  const nlohmann::json out = redact(event, {});
  EXPECT_EQ(out["time"], "[time]");
  EXPECT_EQ(out["pid"], "[pid]");
  EXPECT_EQ(out["duration_s"], "[duration]");
  EXPECT_EQ(out["master_port"], "[port]");
  EXPECT_EQ(out["master_address"], "[host]");
  EXPECT_EQ(out["inner"]["hostname"], "[host]");
  EXPECT_EQ(out["inner"]["time"], "[time]");
  EXPECT_EQ(out["kind"], "group_init");
}

TEST(Redact, AbsolutePathsKeepOnlyTheirBasename) {
  EXPECT_EQ(scrub_string("/work/main/build/fixtures/transforms/libgraft_double_transform.so:double_it", {}),
            "[path]/libgraft_double_transform.so:double_it");
  EXPECT_EQ(scrub_string("dlopen failed: /tmp/x/libmissing.so: cannot open shared object file", {}),
            "dlopen failed: [path]/libmissing.so: cannot open shared object file");
  EXPECT_EQ(scrub_string("library '/opt/a/b.so'.", {}), "library '[path]/b.so'.");
  EXPECT_EQ(scrub_string("not found in /usr/lib.", {}), "not found in [path]/lib.");
}

TEST(Redact, TextThatIsNotAPathStaysAsItIs) {
  EXPECT_EQ(scrub_string("b2t/t2b", {}), "b2t/t2b");
  EXPECT_EQ(scrub_string("a / b", {}), "a / b");
  EXPECT_EQ(scrub_string("ratio 1/2", {}), "ratio 1/2");
  EXPECT_EQ(scrub_string("libgraft_double_transform.so:double_it", {}), "libgraft_double_transform.so:double_it");
}

TEST(Redact, EnvironmentValuesQuotedInMessagesAreScrubbed) {
  EXPECT_EQ(scrub_string("dlopen's search (LD_LIBRARY_PATH=/opt/a:/opt/b, the ld.so cache)", {}),
            "dlopen's search (LD_LIBRARY_PATH=[env], the ld.so cache)");
  EXPECT_EQ(scrub_string("LD_LIBRARY_PATH=unset", {}), "LD_LIBRARY_PATH=[env]");
}

TEST(Redact, TheRunsPortIsScrubbedButLongerNumbersAreNot) {
  const redaction_context context{{29517}};
  EXPECT_EQ(scrub_string("connect to 127.0.0.1:29517 timed out", context), "connect to [host]:[port] timed out");
  EXPECT_EQ(scrub_string("port 29517 busy", context), "port [port] busy");
  EXPECT_EQ(scrub_string("value 129517 and 295170", context), "value 129517 and 295170");
}

TEST(MakeSnapshot, MergesByGraftRankKeepingEachRanksOrder) {
  snapshot_input input;
  input.scenario = "demo";
  input.baseline_world_size = 1;
  input.target_world_size = 1;
  input.events = {{{"graft_rank", 1}, {"kind", "a"}},
                  {{"graft_rank", 0}, {"kind", "b"}},
                  {{"graft_rank", 1}, {"kind", "c"}},
                  {{"graft_rank", 0}, {"kind", "d"}}};
  const nlohmann::json snap = make_snapshot(input, {});
  ASSERT_EQ(snap["events"].size(), 4u);
  EXPECT_EQ(snap["events"][0]["kind"], "b");
  EXPECT_EQ(snap["events"][1]["kind"], "d");
  EXPECT_EQ(snap["events"][2]["kind"], "a");
  EXPECT_EQ(snap["events"][3]["kind"], "c");
  EXPECT_EQ(snap["schema_version"], kSnapshotSchemaVersion);
  EXPECT_EQ(snap["world"]["target"], 1);
  EXPECT_FALSE(snap.contains("tolerances"));
}

}  // namespace
}  // namespace graft::harness
