// The c10d exchange between real processes (c10d_peer, one per rank) on
// 127.0.0.1: the happy path and the ways a run goes wrong — a peer that never
// arrives, a peer killed mid-run, world sizes that disagree, a taken port.

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "c10d_world.hpp"
#include "peer_process.hpp"

namespace {

using namespace std::chrono_literals;
using graft_test::contains;
using graft_test::expect_on_time;
using graft_test::peer;

constexpr int kConfigError = 10;
constexpr int kTimeoutError = 11;
constexpr int kExchangeError = 13;

class C10dProcesses : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/graft_c10d_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    port_ = graft_test::free_port();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // role local_rank B T timeout calls [hang]
  std::unique_ptr<peer> start(const std::string& role, int local_rank, int b, int t, double timeout, int calls,
                              bool hang = false) {
    std::vector<std::string> args{role, std::to_string(local_rank), std::to_string(b), std::to_string(t),
                                  std::to_string(port_), std::to_string(timeout), std::to_string(calls)};
    if (hang) args.emplace_back("hang");
    return std::make_unique<peer>(dir_ + "/" + role + std::to_string(local_rank) + ".out", args);
  }

  std::string dir_;
  int port_ = 0;
};

TEST_F(C10dProcesses, OneBaselineAndOneTargetExchangeBothWays) {
  auto baseline = start("baseline", 0, 1, 1, 20, 3);
  auto target = start("target", 0, 1, 1, 20, 3);
  EXPECT_EQ(baseline->exit_code(), 0) << baseline->output();
  EXPECT_EQ(target->exit_code(), 0) << target->output();
  for (const auto* p : {baseline.get(), target.get()}) {
    const std::string out = p->output();
    EXPECT_TRUE(contains(out, "call 0 ok") && contains(out, "call 1 ok") && contains(out, "call 2 ok")) << out;
    EXPECT_FALSE(contains(out, "wrong")) << out;
  }
}

TEST_F(C10dProcesses, TwoBaselinesAndThreeTargets) {
  std::vector<std::unique_ptr<peer>> peers;
  for (int r = 0; r < 2; ++r) peers.push_back(start("baseline", r, 2, 3, 20, 2));
  for (int r = 0; r < 3; ++r) peers.push_back(start("target", r, 2, 3, 20, 2));
  for (auto& p : peers) {
    EXPECT_EQ(p->exit_code(), 0) << p->output();
    EXPECT_TRUE(contains(p->output(), "call 1 ok")) << p->output();
  }
}

TEST_F(C10dProcesses, TargetThatNeverArrivesIsATimeoutNamingTheEndpoint) {
  auto baseline = start("baseline", 0, 1, 1, 2, 1);
  EXPECT_EQ(baseline->exit_code(), kTimeoutError) << baseline->output();
  expect_on_time(*baseline, 2);
  const std::string out = baseline->output();
  EXPECT_TRUE(contains(out, "127.0.0.1:" + std::to_string(port_))) << out;
  EXPECT_TRUE(contains(out, "graft rank 0 of 2")) << out;
  EXPECT_TRUE(contains(out, "never arrived: graft rank 1 (target rank 0)")) << out;
}

TEST_F(C10dProcesses, StoreHostThatNeverArrivesIsATimeoutNamingTheEndpoint) {
  auto target = start("target", 0, 1, 1, 2, 1);
  EXPECT_EQ(target->exit_code(), kTimeoutError) << target->output();
  expect_on_time(*target, 2);
  const std::string out = target->output();
  EXPECT_TRUE(contains(out, "127.0.0.1:" + std::to_string(port_))) << out;
  EXPECT_TRUE(contains(out, "graft rank 1 of 2 (target rank 0)")) << out;
  EXPECT_TRUE(contains(out, "baseline side is running")) << out;
}

TEST_F(C10dProcesses, TargetKilledBetweenCallsFailsTheBaselineCleanly) {
  auto baseline = start("baseline", 0, 1, 1, 5, 3);
  auto target = start("target", 0, 1, 1, 5, 1, /*hang=*/true);
  ASSERT_TRUE(target->wait_for_output("call 0 ok")) << target->output();
  target->kill_now();
  const int status = baseline->wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << "the baseline died of a signal: " << baseline->output();
  const int code = WEXITSTATUS(status);
  EXPECT_TRUE(code == kExchangeError || code == kTimeoutError) << code << ": " << baseline->output();
  EXPECT_TRUE(contains(baseline->output(), "call 0 ok")) << baseline->output();
  EXPECT_TRUE(contains(baseline->output(), "dump call 'peer_call' (sequence 1)")) << baseline->output();
}

TEST_F(C10dProcesses, WorldSizesThatDisagreeAreAConfigErrorOnBothSides) {
  auto baseline = start("baseline", 0, 1, 1, 20, 1);
  auto target = start("target", 0, 1, 2, 20, 1);
  EXPECT_EQ(baseline->exit_code(), kConfigError) << baseline->output();
  EXPECT_EQ(target->exit_code(), kConfigError) << target->output();
  for (const auto* p : {baseline.get(), target.get()}) {
    const std::string out = p->output();
    EXPECT_TRUE(contains(out, "target_world_size=1") && contains(out, "target_world_size=2")) << out;
  }
}

// A socket listening on port that never accepts: the kernel completes each
// connection for it, and nothing ever answers. Closed with the test.
class silent_listener {
 public:
  explicit silent_listener(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    listening_ = fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                 listen(fd_, 4) == 0;
  }
  ~silent_listener() {
    if (fd_ >= 0) close(fd_);
  }
  silent_listener(const silent_listener&) = delete;
  silent_listener& operator=(const silent_listener&) = delete;
  bool listening() const { return listening_; }

 private:
  int fd_;
  bool listening_ = false;
};

// Another program on the port, or a store host stopped before anyone
// connected: the connection succeeds and no answer ever comes.
TEST_F(C10dProcesses, AStoreThatNeverAnswersIsATimeoutNamingTheEndpoint) {
  const silent_listener listener(port_);
  ASSERT_TRUE(listener.listening());
  auto target = start("target", 0, 1, 1, 2, 1);
  EXPECT_EQ(target->exit_code(), kTimeoutError) << target->output();
  expect_on_time(*target, 2);
  const std::string out = target->output();
  EXPECT_TRUE(contains(out, "graft rank 1 of 2 (target rank 0) at 127.0.0.1:" + std::to_string(port_))) << out;
  EXPECT_TRUE(contains(out, "took the connection but did not answer its first request within 2 s")) << out;
  EXPECT_TRUE(contains(out, "not stopped (by a debugger or SIGSTOP)")) << out;
}

// The store host stops while a target waits in the rendezvous for a second
// target that never comes: the target's next request to the store gets no
// answer, and is bounded all the same.
TEST_F(C10dProcesses, AStoreHostStoppedDuringTheRendezvousIsATimeout) {
  auto baseline = start("baseline", 0, 1, 2, 3, 1);
  auto target = start("target", 0, 1, 2, 3, 1);
  std::this_thread::sleep_for(1s);
  ASSERT_TRUE(baseline->signal(SIGSTOP));
  const int code = target->exit_code();
  baseline->signal(SIGCONT);
  EXPECT_EQ(code, kTimeoutError) << target->output();
  expect_on_time(*target, 3);
}

TEST_F(C10dProcesses, PortAlreadyTakenIsNamed) {
  const silent_listener listener(port_);
  ASSERT_TRUE(listener.listening());
  auto baseline = start("baseline", 0, 1, 1, 2, 1);
  EXPECT_EQ(baseline->exit_code(), kExchangeError) << baseline->output();
  const std::string out = baseline->output();
  EXPECT_TRUE(contains(out, "cannot host the rendezvous store on port " + std::to_string(port_))) << out;
  EXPECT_TRUE(contains(out, "Choose a free master_port")) << out;
}

}  // namespace
