#pragma once
// Waiting on processes a test did not start itself: what a rank's shell left
// running, found through a pid it wrote to a file.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace graft::harness::testing {

// Whether the process is gone, or a zombie left for its new parent to reap,
// waiting up to ten seconds for it.
inline bool process_gone(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const std::size_t after_name = line.rfind(')');
    if (after_name != std::string::npos && line.compare(after_name + 1, 3, " Z ") == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The pid written to file, once it is there (0 after ten seconds without).
inline pid_t pid_written_to(const std::filesystem::path& file) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

}  // namespace graft::harness::testing
