#pragma once
// A fixture for tests in which a host program (c10d_grafter_peer, its dump
// calls through graft::grafter) meets a peer (c10d_peer ... as-grafter) that
// fails it at a chosen point, and the checks of what the grafter promises its
// host after that failure: the call returned within the timeout plus the
// slack, the target's bytes are those it had before the call, one group_error
// event names the phase, the grafter is off, and the host exits cleanly.
// Both programs come from CMake: GRAFT_C10D_PEER, GRAFT_C10D_GRAFTER_PEER.
//
// Times, each recorded as a test property:
//   call_seconds      how long the failing maybe_intercept blocked, measured
//                     inside the host program around the call: the whole
//                     call (its header phase and its payload phase, or the
//                     rendezvous of a first call), not the process's start.
//   seconds_from_peer how long after the test saw the peer's line saying it
//                     stopped or died ("stopping", "call N header through";
//                     polled every 10 ms) the host program had exited: the
//                     rest of the wait plus the host's teardown.
//   seconds_from_main how long after the test saw the host program's first
//                     line ("started", printed on entering main, once
//                     libtorch is loaded) it had exited: the whole program
//                     but its loading, for a wait that comes first.
//   seconds_to_exit   spawn to exit of the host program, loading libtorch
//                     included; recorded, not bounded: on a 2-core machine
//                     under load the loading alone took seconds.

#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "c10d_world.hpp"
#include "peer_process.hpp"

namespace graft_test {

class grafter_host_test : public ::testing::Test {
 protected:
  using json = nlohmann::json;

  void SetUp() override {
    char pattern[] = "/tmp/graft_c10d_grafter_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    port_ = free_port();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // The host program of one side (rank 0 of 1), one dump call per direction.
  std::unique_ptr<peer> start_host(const std::string& role, const std::vector<std::string>& directions) {
    std::vector<std::string> args{role, "0", "1", "1", std::to_string(port_), std::to_string(timeout_seconds_),
                                  events_path(role), "backend=" + backend_};
    args.insert(args.end(), directions.begin(), directions.end());
    return std::make_unique<peer>(GRAFT_C10D_GRAFTER_PEER, dir_ + "/" + role + "_host.out", args);
  }

  // The other side (rank 0 of 1): c10d_peer with the grafter's call identities.
  std::unique_ptr<peer> start_peer(const std::string& role, int calls, const std::string& option) {
    return std::make_unique<peer>(
        GRAFT_C10D_PEER, dir_ + "/" + role + "_peer.out",
        std::vector<std::string>{role, "0", "1", "1", std::to_string(port_), std::to_string(timeout_seconds_),
                                 std::to_string(calls), "as-grafter", "backend=" + backend_, option});
  }

  std::string events_path(const std::string& role) const { return dir_ + "/" + role + ".events.jsonl"; }

  std::vector<json> events(const std::string& role) const {
    std::ifstream in(events_path(role));
    std::vector<json> out;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(json::parse(line));
    }
    return out;
  }

  // The host program's "call {...}" lines.
  static std::vector<json> calls(const peer& host) {
    std::istringstream in(host.output());
    std::vector<json> out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("call {", 0) == 0) out.push_back(json::parse(line.substr(5)));
    }
    return out;
  }

  void expect_within_timeout(const std::string& what, double seconds, const std::string& context) const {
    ::testing::Test::RecordProperty(what, std::to_string(seconds));
    EXPECT_LE(seconds, timeout_seconds_ + kTimeoutSlackSeconds)
        << what << " against a configured timeout of " << timeout_seconds_ << " s: " << context;
  }

  // The host program (its wait status) ran its calls and exited 0; the last
  // call failed: it received, its target kept its bytes, and the grafter is
  // off. Every call before it went through.
  void expect_last_call_failed(const peer& host, int status, std::size_t call_count) const {
    const std::string out = host.output();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << ": " << out;
    EXPECT_TRUE(contains(out, "\ndone\n")) << out;
    const std::vector<json> lines = calls(host);
    if (lines.size() != call_count) {
      ADD_FAILURE() << "expected " << call_count << " call lines: " << out;
      return;
    }
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
      const json& c = lines[i];
      EXPECT_TRUE(c["active"].get<bool>()) << c;
      if (c["receives"].get<bool>()) {
        EXPECT_TRUE(c["grafted"].get<bool>()) << "the call before the failure did not graft: " << c;
      } else {
        EXPECT_TRUE(c["unchanged"].get<bool>()) << "a sender's tensor changed: " << c;
      }
    }
    const json& failed = lines.back();
    EXPECT_TRUE(failed["receives"].get<bool>()) << failed;
    EXPECT_TRUE(failed["unchanged"].get<bool>()) << "the target's bytes changed in a failed call: " << failed;
    EXPECT_FALSE(failed["grafted"].get<bool>()) << failed;
    EXPECT_FALSE(failed["active"].get<bool>()) << "the grafter stayed on after the failure: " << failed;
    expect_within_timeout("call_seconds", failed["seconds"].get<double>(), out);
  }

  // A wait that timed out took its whole timeout, less a quarter second (the
  // store client's retry pause, clock rounding): a rank that gives up early
  // fails a world whose peer was about to come (libtorch's store client alone
  // gave up after 2 s of 3).
  void expect_waited_its_timeout(const peer& host) const {
    const std::vector<json> lines = calls(host);
    ASSERT_FALSE(lines.empty()) << host.output();
    EXPECT_GE(lines.back()["seconds"].get<double>(), timeout_seconds_ - 0.25)
        << "configured timeout " << timeout_seconds_ << " s: " << host.output();
  }

  // The events end with the one group_error of the failure, in `phase`
  // (init, exchange), whose message contains each of `needles`
  // (case-insensitive).
  void expect_group_error(const std::string& role, const std::string& phase,
                          const std::vector<std::string>& needles) const {
    const std::vector<json> all = events(role);
    std::size_t group_errors = 0;
    for (const json& e : all) group_errors += e["kind"] == "group_error" ? 1 : 0;
    EXPECT_EQ(group_errors, 1u) << json(all).dump(1);
    if (all.empty() || all.back()["kind"] != "group_error") {
      ADD_FAILURE() << "the last event is not the group_error: " << json(all).dump(1);
      return;
    }
    const json& e = all.back();
    EXPECT_EQ(e["phase"], phase) << e;
    const std::string message = e["message"].get<std::string>();
    ::testing::Test::RecordProperty("group_error", message);
    for (const auto& needle : needles) EXPECT_TRUE(contains(lower(message), lower(needle))) << needle << ": " << e;
    EXPECT_TRUE(contains(message, "the grafter is now disabled on this rank")) << e;
  }

  // Waits for `line` from `watched` (the peer saying it stops or dies, or
  // the host saying it started), then for the host; the host's exit came
  // within the timeout plus the slack after that line, recorded as
  // `property`. Returns the host's wait status.
  int expect_host_ends_after(const peer& watched, const std::string& line, peer& host,
                             const std::string& property = "seconds_from_peer") const {
    const bool seen_line = watched.wait_for_output(line);
    const auto seen = std::chrono::steady_clock::now();
    EXPECT_TRUE(seen_line) << watched.output();
    const int status = host.wait_exit();
    ::testing::Test::RecordProperty("seconds_to_exit", std::to_string(host.seconds_to_exit()));
    if (seen_line) {
      expect_within_timeout(property, std::chrono::duration<double>(host.ended() - seen).count(), host.output());
    }
    return status;
  }

  static std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
  }

  // Long enough for the calls before the failing one, the rendezvous of two
  // processes that load libtorch side by side included, on a loaded machine.
  double timeout_seconds_ = 3;
  std::string backend_ = "gloo";
  std::string dir_;
  int port_ = 0;
};

}  // namespace graft_test
