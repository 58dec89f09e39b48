// The payload wait over NCCL failing under a host program: the cases of
// c10d_grafter_timeout_test.cpp's payload phase with backend=nccl, every
// tensor on a CUDA device (graft rank modulo the devices), so that the
// payload is an NCCL send/recv in torch's blocking-wait mode while the
// headers still travel over Gloo. The sender stops (SIGSTOP) or dies
// (SIGKILL) once its header went through; the receiving host's call returns
// within the timeout plus the slack, its CUDA target keeps its bytes, a
// group_error names the payload phase, and the host exits cleanly.
//
// Labelled gpu. Skips with the reason where the build has no NCCL or the
// machine fewer than two CUDA devices: NCCL refuses two ranks of one
// communicator on one device, so the two processes need a device each.

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include <ATen/Context.h>
#include <gtest/gtest.h>

#include "grafter_host_test.hpp"

namespace {

// Why this build and machine cannot run these tests; empty when they can.
std::string missing() {
#ifndef GRAFT_WITH_NCCL
  return "this graft was built without NCCL (a libtorch without CUDA, or CMake found no nccl.h: set "
         "GRAFT_NCCL_INCLUDE_DIR), so the NCCL payload wait cannot be tested";
#else
  const int visible = at::hasCUDA() ? static_cast<int>(at::getNumGPUs()) : 0;
  if (visible < 2) {
    return "needs 2 CUDA devices, one per process (NCCL refuses two ranks of one communicator on one device); " +
           std::to_string(visible) + " visible, so the NCCL payload wait is NOT tested here";
  }
  return "";
#endif
}

class NcclPayloadTimeouts : public graft_test::grafter_host_test {
 protected:
  void SetUp() override {
    if (const std::string why = missing(); !why.empty()) GTEST_SKIP() << why;
    // graft requires torch's blocking wait for NCCL; the processes inherit
    // it (a libtorch before 2.2 reads only NCCL_BLOCKING_WAIT).
    ::setenv("TORCH_NCCL_BLOCKING_WAIT", "1", 1);
    ::setenv("NCCL_BLOCKING_WAIT", "1", 1);
    backend_ = "nccl";
    // A first NCCL transfer creates the communicator, which takes seconds.
    timeout_seconds_ = 10;
    grafter_host_test::SetUp();
  }
};

TEST_F(NcclPayloadTimeouts, B2tTargetWaitsForABaselineStoppedAfterItsHeader) {
  auto other = start_peer("baseline", 3, "stop-after-header=2");
  auto host = start_host("target", {"b2t", "t2b", "b2t"});
  const int host_status = expect_host_ends_after(*other, "call 2 header through", *host);
  expect_last_call_failed(*host, host_status, 3);
  expect_group_error("target", "exchange", {"dump call 'b2t_value' (sequence 3): payload"});
}

TEST_F(NcclPayloadTimeouts, T2bBaselineWaitsForATargetStoppedAfterItsHeader) {
  auto other = start_peer("target", 2, "stop-after-header=1");
  auto host = start_host("baseline", {"b2t", "t2b"});
  const int host_status = expect_host_ends_after(*other, "call 1 header through", *host);
  expect_last_call_failed(*host, host_status, 2);
  expect_group_error("baseline", "exchange", {"dump call 't2b_value' (sequence 2): payload"});
}

TEST_F(NcclPayloadTimeouts, B2tTargetOutlivesABaselineKilledAfterItsHeader) {
  auto other = start_peer("baseline", 3, "kill-after-header=2");
  auto host = start_host("target", {"b2t", "t2b", "b2t"});
  const int host_status = expect_host_ends_after(*other, "call 2 header through", *host);
  const int status = other->wait_exit();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status << ": " << other->output();
  expect_last_call_failed(*host, host_status, 3);
  expect_group_error("target", "exchange", {"dump call 'b2t_value' (sequence 3): payload"});
}

}  // namespace
