// Child processes as the runner starts them.
#include <chrono>
#include <fstream>
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
TEST(ChildProcess, StartsWithTheSignalMaskOfTheThreadThatStartedIt) {
  testing::temp_dir dir;
  child_process child({"/bin/grep", "SigBlk", "/proc/self/status"}, {}, dir / "log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!child.poll() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(child.describe_status(), "exit 0");
  // The mask of the thread that started it (none blocked, unless whatever
  // runs the tests blocked some).
  std::ifstream own_status("/proc/thread-self/status");
  std::string own_mask;
  for (std::string line; std::getline(own_status, line);) {
    if (line.rfind("SigBlk:", 0) == 0) own_mask = line + "\n";
  }
  ASSERT_FALSE(own_mask.empty());
  EXPECT_EQ(testing::read_file(dir / "log"), own_mask);
}

}  // namespace
}  // namespace graft::harness
