// events_path: its placeholders and its checks at validation (the grafter
// writing there: core/grafter_failures_test.cpp).
#include <graft/events_path.hpp>

#include <string>

#include <gtest/gtest.h>

#include <graft/config.hpp>
#include <graft/error.hpp>

namespace graft {
namespace {

graft_config enabled_config() {
  graft_config c = graft_config::from_env_map({{"DUMPER_GRAFTER_ENABLE", "1"},
                                               {"DUMPER_GRAFTER_ROLE", "target"},
                                               {"DUMPER_GRAFTER_MASTER_ADDRESS", "127.0.0.1"},
                                               {"DUMPER_GRAFTER_MASTER_PORT", "1"},
                                               {"DUMPER_GRAFTER_BASELINE_WORLD_SIZE", "2"},
                                               {"DUMPER_GRAFTER_TARGET_WORLD_SIZE", "2"},
                                               {"DUMPER_GRAFTER_B2T_FILTER", "name == 'x'"}});
  return c;
}

TEST(events_path, placeholders_are_filled_in) {
  EXPECT_EQ(expand_events_path("/tmp/ev-{role}-{rank}-{graft_rank}-{pid}.jsonl", "target", 1, 3, 42),
            "/tmp/ev-target-1-3-42.jsonl");
  EXPECT_EQ(expand_events_path("plain.jsonl", "baseline", 0, 0, 7), "plain.jsonl");
  EXPECT_EQ(expand_events_path("{rank}{rank}", "baseline", 5, 5, 7), "55");
}

TEST(events_path, bad_patterns_are_named) {
  EXPECT_EQ(events_path_problem("/tmp/{role}.jsonl"), std::nullopt);
  // A pattern taken for good is a failure here, not a crash.
  const auto names = [](const std::string& pattern, const std::string& part) {
    const auto problem = events_path_problem(pattern);
    return problem.has_value() && problem->find(part) != std::string::npos;
  };
  EXPECT_TRUE(names("/tmp/{host}.jsonl", "unknown placeholder {host}"));
  EXPECT_TRUE(names("/tmp/{role.jsonl", "never closed"));
  EXPECT_TRUE(names("/tmp/role}.jsonl", "closes no '{'"));
  EXPECT_TRUE(names("", "empty"));
}

TEST(events_path, read_from_the_environment_and_checked_by_validate) {
  graft_config c = enabled_config();
  EXPECT_FALSE(c.events_path.has_value());
  c = graft_config::from_env_map({{"DUMPER_GRAFTER_EVENTS_PATH", "/tmp/{role}-{rnk}.jsonl"}});
  EXPECT_EQ(c.events_path, "/tmp/{role}-{rnk}.jsonl");
  graft_config bad = enabled_config();
  bad.events_path = "/tmp/{role}-{rnk}.jsonl";
  try {
    bad.validate();
    FAIL() << "validated";
  } catch (const config_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("events_path '/tmp/{role}-{rnk}.jsonl': unknown placeholder {rnk}"), std::string::npos)
        << message;
    EXPECT_NE(message.find("DUMPER_GRAFTER_EVENTS_PATH"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace graft
