#include <graft/harness/localize/localize.hpp>

#include <unistd.h>

#include <gtest/gtest.h>

namespace loc = graft::harness::localize;

TEST(Passes, SubstituteReplacesKnownPlaceholdersOnly) {
  const std::map<std::string, std::string> values{{"role", "target"}, {"rank", "1"}, {"events", "/tmp/e.jsonl"}};
  EXPECT_EQ(loc::substitute("prog --role {role} --rank={rank} --events {events} {unknown} {", values),
            "prog --role target --rank=1 --events /tmp/e.jsonl {unknown} {");
}

TEST(Passes, ShellCommandRunsThroughSh) {
  const loc::side_command c = loc::shell_command("my_engine --tp 2", 2);
  EXPECT_EQ(c.argv, (std::vector<std::string>{"/bin/sh", "-c", "my_engine --tp 2"}));
  EXPECT_EQ(c.world_size, 2);
}

TEST(Passes, FiltersOfThePasses) {
  EXPECT_EQ(loc::accumulated_filters().at("compare_filter"), "name is not None");
  const auto local = loc::local_filters("block_in");
  EXPECT_EQ(local.at("b2t_filter"), "name == 'block_in'");
  EXPECT_EQ(local.at("compare_filter"), "name != 'block_in'");
  EXPECT_EQ(loc::local_filters("it's").at("b2t_filter"), "name == 'it\\'s'");
}

// A real pass whose target cannot start: a problem in the outcome, not a throw.
TEST(Passes, AFailingRankIsAProblemWithItsLog) {
  loc::pass_spec spec;
  spec.label = "broken";
  spec.baseline = loc::shell_command("exit 0", 1);
  spec.target = loc::shell_command("echo target says no >&2; exit 3", 1);
  spec.directory = std::filesystem::temp_directory_path() / ("graft_localize_passes_" + std::to_string(::getpid()));
  spec.timeout = std::chrono::seconds(30);
  const loc::pass_outcome outcome = loc::run_pass(spec);
  std::filesystem::remove_all(spec.directory);
  ASSERT_FALSE(outcome.ok());
  bool named = false;
  for (const auto& p : outcome.problems) {
    named = named || (p.find("target rank 0 ended with exit 3") != std::string::npos &&
                      p.find("target says no") != std::string::npos);
  }
  EXPECT_TRUE(named) << outcome.problems.front();
}
