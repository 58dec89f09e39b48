#include <graft/localize/localize.hpp>

#include <unistd.h>

#include <cstdio>

#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "process_checks.hpp"

namespace loc = graft::harness::localize;
using graft::harness::testing::pid_written_to;
using graft::harness::testing::process_gone;

TEST(Passes, SubstituteReplacesKnownPlaceholdersOnly) {
  const std::map<std::string, std::string> values{{"role", "target"}, {"rank", "1"}, {"events", "/tmp/e.jsonl"}};
  for (const auto use : {loc::placeholder_use::argument, loc::placeholder_use::shell_line}) {
    EXPECT_EQ(loc::substitute("prog --role {role} --rank={rank} --events {events} {unknown} {", values, use),
              "prog --role target --rank=1 --events /tmp/e.jsonl {unknown} {");
  }
  EXPECT_EQ(loc::substitute("{events}", {{"events", "/tmp/my runs/e.jsonl"}}, loc::placeholder_use::argument),
            "/tmp/my runs/e.jsonl");
}

// What /bin/sh hands printf for a command line: each word in brackets.
std::string words_the_shell_reads(const std::string& command_line) {
  FILE* shell = ::popen(command_line.c_str(), "r");
  if (shell == nullptr) return "(popen failed)";
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, shell) != nullptr) out += buffer;
  ::pclose(shell);
  return out;
}

// A reports folder with a space or a quote in it is one word to the program
// wherever {events} stands: bare, inside '...', or inside "...".
TEST(Passes, ShellLinePlaceholdersStayOneWordWhereverTheyStand) {
  const std::string path = "/tmp/my runs/it's $HOME `true` \\ \"q\" *.jsonl";
  const std::map<std::string, std::string> values{{"events", path}, {"rank", "0"}};
  const auto shell_reads = [&](const std::string& line) {
    return words_the_shell_reads(loc::substitute(line, values, loc::placeholder_use::shell_line));
  };
  EXPECT_EQ(shell_reads("printf '[%s]' {events} {rank}"), "[" + path + "][0]");
  EXPECT_EQ(shell_reads("printf '[%s]' --events={events}"), "[--events=" + path + "]");
  EXPECT_EQ(shell_reads("printf '[%s]' \"--events {events} \\\"{rank}\\\"\""),
            "[--events " + path + " \"0\"]");
  EXPECT_EQ(shell_reads("printf '[%s]' 'at {events}' \\'{events}"), "[at " + path + "]['" + path + "]");
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

// A launcher stands for torchrun: it starts the ranks itself, and graft tells
// them apart by the events file each rank's grafter names from its own role
// and rank (here the launcher writes them, as such a grafter would).
loc::pass_spec launch_spec(const std::string& label, const std::string& writes) {
  loc::pass_spec spec;
  spec.label = label;
  spec.baseline = {{}, 1};
  spec.target = {{}, 2};
  spec.launch = loc::shell_command(
      "test {baseline_world_size}+{target_world_size} = 1+2 && test -z \"$DUMPER_GRAFTER_ROLE\" && for r in " + writes +
          "; do f=$(printf %s \"$DUMPER_GRAFTER_EVENTS_PATH\" | sed \"s/{role}/target/; s/{rank}/$r/\"); "
          "echo '{\"kind\":\"compare\",\"tags\":{\"name\":\"x\"},\"metrics\":{\"rel_diff\":'$r'}}' > \"$f\"; done",
      1);
  spec.directory = std::filesystem::temp_directory_path() / ("graft_localize_launch_" + std::to_string(::getpid()));
  spec.timeout = std::chrono::seconds(30);
  return spec;
}

TEST(Passes, ALaunchCommandStartsEveryRankAndTheirEventsTellThemApart) {
  const loc::pass_spec spec = launch_spec("launched", "0 1");
  const loc::pass_outcome outcome = loc::run_pass(spec);
  std::filesystem::remove_all(spec.directory);
  EXPECT_TRUE(outcome.ok()) << outcome.problems.front();
  ASSERT_EQ(outcome.target_events.size(), 2u);
  for (const auto& e : outcome.target_events) EXPECT_EQ(e["rank"], e["metrics"]["rel_diff"]) << e.dump();
}

TEST(Passes, ALaunchCommandMissingATargetRankSaysWhatTheRankNeeds) {
  const loc::pass_spec spec = launch_spec("launched", "0");
  const loc::pass_outcome outcome = loc::run_pass(spec);
  std::filesystem::remove_all(spec.directory);
  ASSERT_EQ(outcome.problems.size(), 1u);
  EXPECT_NE(outcome.problems[0].find("launched: target rank 1 wrote no events to "), std::string::npos)
      << outcome.problems[0];
  EXPECT_NE(outcome.problems[0].find("does the launch command start 2 target ranks, each with "
                                     "DUMPER_GRAFTER_ROLE=target and its RANK"),
            std::string::npos)
      << outcome.problems[0];
  EXPECT_EQ(outcome.target_events.size(), 1u);
}

loc::localize_options shell_options(const std::string& target_command, int target_world_size) {
  loc::localize_options options;
  options.run_name = "progress";
  options.reports_dir = std::filesystem::temp_directory_path() / ("graft_localize_progress_" + std::to_string(::getpid()));
  options.baseline = loc::shell_command("exit 0", 1);
  options.target = loc::shell_command(target_command, target_world_size);
  options.timeout = std::chrono::seconds(30);
  return options;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Each pass says when it starts and how it ended: a user's program may run for
// minutes, and without these lines the command is silent until the report.
TEST(Passes, ProgressNamesEachPassAsItStartsAndEnds) {
  loc::localize_options options = shell_options(": > {events}", 2);  // events, but no point
  options.calibration_target = options.target;
  std::vector<std::string> lines;
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  const loc::localize_report report = loc::run_localize(options);
  std::filesystem::remove_all(options.reports_dir);
  ASSERT_EQ(lines.size(), 8u);
  const std::vector<std::string> labels{"calibration-accumulated", "calibration-local", "accumulated", "local"};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string step = "[" + std::to_string(i + 1) + "/4] " + labels[i];
    EXPECT_TRUE(starts_with(lines[2 * i], step + ": 1 baseline rank + 2 target ranks, up to 30 s; logs in "))
        << lines[2 * i];
    EXPECT_TRUE(starts_with(lines[2 * i + 1], step + " ... 0 points measured (")) << lines[2 * i + 1];
  }
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_TRUE(starts_with(report.problems[0], "no point was measured")) << report.problems[0];
}

// A pass whose processes fail stops the run: the next would fail alike, after
// up to the whole timeout.
TEST(Passes, AFailedPassStopsTheRun) {
  loc::localize_options options = shell_options("exit 3", 1);
  std::vector<std::string> lines;
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  const loc::localize_report report = loc::run_localize(options);
  std::filesystem::remove_all(options.reports_dir);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(starts_with(lines[1], "[1/2] accumulated ... 0 points measured, 2 problems (")) << lines[1];
  EXPECT_EQ(lines[2], "[2/2] local: not run, since the accumulated pass failed");
  ASSERT_EQ(report.problems.size(), 3u);
  EXPECT_NE(report.problems[0].find("accumulated: target rank 0 ended with exit 3"), std::string::npos)
      << report.problems[0];
  EXPECT_EQ(report.problems[2], "local: not run, since the accumulated pass failed; fix that first");
}

// The built-in model and a user's command line both find their events file
// in a reports folder whose path the shell would split or expand.
TEST(Passes, AReportsFolderWithSpacesAndQuotesReachesTheCommand) {
  const std::string compare_event =
      R"({"kind":"compare","rank":0,"tags":{"name":"layer_input","layer_id":0},"metrics":{"rel_diff":0}})";
  loc::localize_options options = shell_options("echo '" + compare_event + "' > {events}", 1);
  options.reports_dir /= "my runs, it's $HOME";
  const loc::localize_report report = loc::run_localize(options);
  EXPECT_TRUE(std::filesystem::is_regular_file(options.run_directory() / "passes" / "accumulated" /
                                               "target-rank0.events.jsonl"));
  std::filesystem::remove_all(options.reports_dir.parent_path());
  ASSERT_EQ(report.points.size(), 1u);
  for (const auto& problem : report.problems) EXPECT_EQ(problem.find("wrote no events"), std::string::npos) << problem;
}

// A program with no point of --graft-name: the local pass grafts nothing, so
// its errors are the accumulated ones and the run cannot localize anything.
TEST(Passes, ALocalPassThatGraftsNothingIsAProblemNamingThePoints) {
  const std::string compare_event =
      R"({"kind":"compare","rank":0,"tags":{"name":"attn_input","layer_id":0},"metrics":{"rel_diff":0.5}})";
  loc::localize_options options = shell_options("echo '" + compare_event + "' > {events}", 1);
  const loc::localize_report report = loc::run_localize(options);
  std::filesystem::remove_all(options.reports_dir);
  ASSERT_EQ(report.points.size(), 1u);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_TRUE(starts_with(report.problems[0], "the local pass grafted no point: no dump point is named "
                                              "'layer_input' (--graft-name)"))
      << report.problems[0];
  EXPECT_NE(report.problems[0].find("(this run's points: attn_input)"), std::string::npos) << report.problems[0];
}

// Points of --graft-name whose grafts were all skipped: the same consequence,
// with the pass's problems (the skips) to say why.
TEST(Passes, ALocalPassWhoseGraftsWereAllSkippedSaysSo) {
  const std::string input =
      R"({"kind":"compare","rank":0,"tags":{"name":"layer_input","layer_id":0},"metrics":{"rel_diff":0.5}})";
  const std::string output =
      R"({"kind":"compare","rank":0,"tags":{"name":"mlp_output","layer_id":0},"metrics":{"rel_diff":0.5}})";
  const std::string skipped =
      R"({"kind":"recv_skipped","rank":0,"tags":{"name":"layer_input","layer_id":0},"message":"shape_mismatch"})";
  // The local pass is the one with a b2t_filter.
  loc::localize_options options =
      shell_options("if [ -n \"$DUMPER_GRAFTER_B2T_FILTER\" ]; then echo '" + skipped + "'; else echo '" + input +
                        "'; fi > {events}; echo '" + output + "' >> {events}",
                    1);
  const loc::localize_report report = loc::run_localize(options);
  std::filesystem::remove_all(options.reports_dir);
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_NE(report.problems[0].find("local: target rank 0 recv_skipped: shape_mismatch"), std::string::npos)
      << report.problems[0];
  EXPECT_TRUE(starts_with(report.problems[1], "the local pass grafted none of the points named 'layer_input', so "
                                              "each local error is the accumulated one"))
      << report.problems[1];
}

// What a user's shell command starts is killed with it: when the pass times
// out, and when the command exits leaving it running.
TEST(Passes, WhatARankStartedDiesWithIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("graft_localize_group_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  loc::pass_spec spec;
  spec.label = "group";
  spec.directory = dir / "pass";
  spec.timeout = std::chrono::seconds(1);
  // The baseline leaves a sleep behind and exits; the target waits on its own past the timeout.
  spec.baseline = loc::shell_command("sleep 120 & echo $! > '" + (dir / "left").string() + "'", 1);
  spec.target = loc::shell_command("sleep 121 & echo $! > '" + (dir / "late").string() + "'; wait", 1);
  const loc::pass_outcome outcome = loc::run_pass(spec);
  const pid_t left = pid_written_to(dir / "left");
  const pid_t late = pid_written_to(dir / "late");
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(outcome.ok()) << "the target ran past the timeout";
  ASSERT_GT(left, 0);
  ASSERT_GT(late, 0);
  EXPECT_TRUE(process_gone(late)) << "the late rank's sleep outlived the pass";
  EXPECT_TRUE(process_gone(left)) << "the sleep an exited rank left running outlived the pass";
}
