#pragma once
// A helper program run as a child process for the multi-process c10d tests:
// spawned with its stdout and stderr in a file, waited for with a hang limit,
// and the time from spawn to exit recorded so a test can bound a timeout.
//
// The program is c10d_peer (GRAFT_C10D_PEER, set by the test's CMake) unless
// a test names another. Killed with SIGKILL when the object goes while the
// process still runs.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace graft_test {

// A generous bound that only catches hangs.
inline constexpr std::chrono::seconds kHangLimit{30};
// How much later than its configured timeout a timed-out peer may end, from
// its main's start: a loaded machine's scheduling and the teardown. A bound
// on correctness (a wait of twice its timeout fails), not a benchmark.
inline constexpr double kTimeoutSlackSeconds = 3.0;

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

class peer {
 public:
#ifdef GRAFT_C10D_PEER
  peer(const std::string& output_path, const std::vector<std::string>& args)
      : peer(GRAFT_C10D_PEER, output_path, args) {}
#endif

  // Spawns program with args; its stdout and stderr go to output_path.
  peer(const std::string& program, const std::string& output_path, const std::vector<std::string>& args)
      : output_(output_path) {
    std::vector<std::string> argv_text{program};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    started_ = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("posix_spawn " + argv_text[0] + " failed: " + std::to_string(rc));
  }

  ~peer() {
    if (pid_ > 0) {
      kill(pid_, SIGCONT);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  peer(const peer&) = delete;
  peer& operator=(const peer&) = delete;

  // The raw wait status; kills the process and fails the test past the limit.
  // Later calls return the same status.
  int wait_exit() {
    if (pid_ <= 0) return status_;
    const auto deadline = std::chrono::steady_clock::now() + kHangLimit;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "peer still running after " << kHangLimit.count() << " s: " << output();
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ended_ = std::chrono::steady_clock::now();
    seconds_to_exit_ = std::chrono::duration<double>(ended_ - started_).count();
    pid_ = -1;
    status_ = status;
    return status;
  }

  // From the spawn to the exit wait_exit saw.
  double seconds_to_exit() const { return seconds_to_exit_; }
  std::chrono::steady_clock::time_point started() const { return started_; }
  // When wait_exit saw the exit (within 10 ms of it).
  std::chrono::steady_clock::time_point ended() const { return ended_; }

  // The exit code of a normal exit; -1 for a signal.
  int exit_code() {
    const int status = wait_exit();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  bool wait_for_output(const std::string& needle) const {
    const auto deadline = std::chrono::steady_clock::now() + kHangLimit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (output().find(needle) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  void kill_now() { kill(pid_, SIGKILL); }
  bool signal(int signal_number) const { return kill(pid_, signal_number) == 0; }
  pid_t pid() const { return pid_; }
  std::string output() const { return read_text(output_); }

 private:
  std::string output_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point ended_;
  double seconds_to_exit_ = 0;
  int status_ = 0;
};

// A peer that timed out ended within its timeout plus the slack, counted
// from its main's start, as it reports ("seconds in main: S"): the loading
// of libtorch before main is no part of a wait, and a loaded machine
// stretches it by seconds.
inline void expect_on_time(const peer& p, double timeout_seconds) {
  const std::string out = p.output();
  const std::string label = "seconds in main: ";
  const auto at = out.find(label);
  ASSERT_NE(at, std::string::npos) << "the peer did not report its time: " << out;
  const double seconds = std::stod(out.substr(at + label.size()));
  ::testing::Test::RecordProperty("seconds_in_main", std::to_string(seconds));
  ::testing::Test::RecordProperty("seconds_to_exit", std::to_string(p.seconds_to_exit()));
  EXPECT_LE(seconds, timeout_seconds + kTimeoutSlackSeconds) << "configured timeout " << timeout_seconds << " s: " << out;
}

}  // namespace graft_test
