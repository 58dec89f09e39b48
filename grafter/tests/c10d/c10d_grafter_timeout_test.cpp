// Each wait of the c10d exchange failing under a host program, between real
// processes on 127.0.0.1. c10d_grafter_peer makes its dump calls through
// graft::grafter; c10d_peer is its peer and fails it at a chosen point: it
// never comes (the rendezvous), stops between calls (the header all-to-all),
// or stops or dies once its header went through (the payload). Each case
// checks what the grafter promises its host: the call returns within the
// timeout plus the slack, the target's bytes are those it had before the
// call, a group_error event names the phase, and the grafter turns itself
// off while the host carries on to a clean exit.
//
// The times each case records, and what each covers: grafter_host_test.hpp.

#include <signal.h>
#include <sys/wait.h>

#include <string>

#include <gtest/gtest.h>

#include "grafter_host_test.hpp"

namespace {

class C10dGrafterTimeouts : public graft_test::grafter_host_test {};

// --- the rendezvous: the peer never comes ---------------------------------
// Only the upper bound is checked. A store client may give up early: with
// libtorch 1.13 a target whose store host never comes ends after about the
// timeout's whole seconds less one (2 s of 3 s, ~0 s of 1.5 s).

TEST_F(C10dGrafterTimeouts, RendezvousB2tTargetWaitsForABaselineThatNeverComes) {
  auto host = start_host("target", {"b2t"});
  expect_last_call_failed(*host, expect_host_ends_after(*host, "started", *host, "seconds_from_main"), 1);
  expect_group_error("target", "init", {"127.0.0.1:" + std::to_string(port_), "baseline side is running"});
  expect_waited_its_timeout(*host);
}

TEST_F(C10dGrafterTimeouts, RendezvousT2bBaselineWaitsForATargetThatNeverComes) {
  auto host = start_host("baseline", {"t2b"});
  expect_last_call_failed(*host, expect_host_ends_after(*host, "started", *host, "seconds_from_main"), 1);
  expect_group_error("baseline", "init", {"never arrived: graft rank 1 (target rank 0)"});
  expect_waited_its_timeout(*host);
}

// --- the process groups: the peer agreed on the layout, then stopped ------

TEST_F(C10dGrafterTimeouts, GroupsB2tTargetWaitsForABaselineStoppedBeforeItsGroups) {
  auto other = start_peer("baseline", 1, "stop-before-groups");
  auto host = start_host("target", {"b2t"});
  expect_last_call_failed(*host, expect_host_ends_after(*host, "started", *host, "seconds_from_main"), 1);
  EXPECT_NE(other->output().find("stopping before the groups"), std::string::npos) << other->output();
  // The stopped rank hosts the store: whether this rank was still reading the
  // layout's verdict, waiting for the groups, or asking the store which rank
  // is missing when it stopped, the wait ends on time with a group_error.
  expect_group_error("target", "init", {"target rank 0"});
  expect_waited_its_timeout(*host);
}

TEST_F(C10dGrafterTimeouts, GroupsT2bBaselineWaitsForATargetStoppedBeforeItsGroups) {
  auto other = start_peer("target", 1, "stop-before-groups");
  auto host = start_host("baseline", {"t2b"});
  expect_last_call_failed(*host, expect_host_ends_after(*host, "started", *host, "seconds_from_main"), 1);
  EXPECT_NE(other->output().find("stopping before the groups"), std::string::npos) << other->output();
  expect_group_error("baseline", "init", {"did not go on to make the process groups", "graft rank 1 (target rank 0)"});
  expect_waited_its_timeout(*host);
}

// --- the header all-to-all: the peer stops between calls ------------------

TEST_F(C10dGrafterTimeouts, HeaderB2tTargetWaitsForABaselineStoppedBetweenCalls) {
  auto other = start_peer("baseline", 2, "stop");
  auto host = start_host("target", {"b2t", "t2b", "b2t"});
  const int host_status = expect_host_ends_after(*other, "stopping", *host);
  expect_last_call_failed(*host, host_status, 3);
  expect_group_error("target", "exchange", {"dump call 'b2t_value' (sequence 3): header exchange", "timed out"});
  expect_waited_its_timeout(*host);
}

TEST_F(C10dGrafterTimeouts, HeaderT2bBaselineWaitsForATargetStoppedBetweenCalls) {
  auto other = start_peer("target", 1, "stop");
  auto host = start_host("baseline", {"b2t", "t2b"});
  const int host_status = expect_host_ends_after(*other, "stopping", *host);
  expect_last_call_failed(*host, host_status, 2);
  expect_group_error("baseline", "exchange", {"dump call 't2b_value' (sequence 2): header exchange", "timed out"});
  expect_waited_its_timeout(*host);
}

// --- the payload: the sender stops or dies once its header went through -----

TEST_F(C10dGrafterTimeouts, PayloadB2tTargetWaitsForABaselineStoppedAfterItsHeader) {
  auto other = start_peer("baseline", 3, "stop-after-header=2");
  auto host = start_host("target", {"b2t", "t2b", "b2t"});
  const int host_status = expect_host_ends_after(*other, "call 2 header through", *host);
  expect_last_call_failed(*host, host_status, 3);
  expect_group_error("target", "exchange", {"dump call 'b2t_value' (sequence 3): payload", "timed out"});
  expect_waited_its_timeout(*host);
}

TEST_F(C10dGrafterTimeouts, PayloadT2bBaselineWaitsForATargetStoppedAfterItsHeader) {
  auto other = start_peer("target", 2, "stop-after-header=1");
  auto host = start_host("baseline", {"b2t", "t2b"});
  const int host_status = expect_host_ends_after(*other, "call 1 header through", *host);
  expect_last_call_failed(*host, host_status, 2);
  expect_group_error("baseline", "exchange", {"dump call 't2b_value' (sequence 2): payload", "timed out"});
  expect_waited_its_timeout(*host);
}

// A dead sender closes its connections: the receiver may learn of it at once
// (exchange_error) or only when its wait runs out (timeout_error).
TEST_F(C10dGrafterTimeouts, PayloadB2tTargetOutlivesABaselineKilledAfterItsHeader) {
  auto other = start_peer("baseline", 3, "kill-after-header=2");
  auto host = start_host("target", {"b2t", "t2b", "b2t"});
  const int host_status = expect_host_ends_after(*other, "call 2 header through", *host);
  const int status = other->wait_exit();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status << ": " << other->output();
  expect_last_call_failed(*host, host_status, 3);
  expect_group_error("target", "exchange", {"dump call 'b2t_value' (sequence 3): payload"});
}

TEST_F(C10dGrafterTimeouts, PayloadT2bBaselineOutlivesATargetKilledAfterItsHeader) {
  auto other = start_peer("target", 2, "kill-after-header=1");
  auto host = start_host("baseline", {"b2t", "t2b"});
  const int host_status = expect_host_ends_after(*other, "call 1 header through", *host);
  const int status = other->wait_exit();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status << ": " << other->output();
  expect_last_call_failed(*host, host_status, 2);
  expect_group_error("baseline", "exchange", {"dump call 't2b_value' (sequence 2): payload"});
}

}  // namespace
