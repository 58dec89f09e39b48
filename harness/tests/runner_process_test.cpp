// Child processes as the runner starts them.
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <graft/harness/process.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

// A child is started with the termination signals held off the spawning
// thread, so that graft's handler cannot miss it; the child itself must not
// inherit that, or it could never be stopped with Ctrl-C or SIGTERM. (Run
// without a shell: /bin/sh clears its mask itself, which would hide it.)
TEST(ChildProcess, StartsWithNoSignalBlocked) {
  testing::temp_dir dir;
  child_process child({"/bin/grep", "SigBlk", "/proc/self/status"}, {}, dir / "log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!child.poll() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(child.describe_status(), "exit 0");
  EXPECT_EQ(testing::read_file(dir / "log"), "SigBlk:\t0000000000000000\n");
}

}  // namespace
}  // namespace graft::harness
