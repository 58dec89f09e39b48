#pragma once
// Child processes for the runner: spawned with posix_spawn, output to a log
// file, waited for with a deadline, killed when late. Each child leads a
// process group of its own, and it is killed with its group: when late, when
// it goes out of scope while still running, and, for what it left running,
// when it exits. So nothing a worker or a user's shell command started
// outlives its scenario or pass.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace graft::harness {

class child_process {
 public:
  // Starts argv[0] (a path) with argv and the environment env ("NAME=value"),
  // stdin from /dev/null, stdout and stderr to log. Throws graft::error naming
  // the program when it cannot start.
  child_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                const std::filesystem::path& log);
  ~child_process();
  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&&) = delete;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  // Reaps the child (killing the rest of its group) if it has exited; true
  // once it has.
  bool poll();
  bool running() const { return pid_ > 0 && !status_; }
  // SIGKILL to its group, and reap.
  void kill();
  // The wait status once exited (see WIFEXITED etc.).
  std::optional<int> status() const { return status_; }
  // "exit 0", "exit 3", "killed by signal 9".
  std::string describe_status() const;

 private:
  void reap();
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// Makes SIGINT, SIGTERM and SIGHUP kill the groups of every child not yet
// reaped before this process dies of them: children lead groups of their own,
// so a terminal's Ctrl-C no longer reaches them itself. For a program's main.
void kill_children_on_termination_signals();

// Polls every process until all have exited or the deadline passes; returns
// whether all exited in time (the late ones are left running for the caller).
bool wait_all(std::vector<child_process>& processes, std::chrono::steady_clock::time_point deadline);

// This process's environment without the named variables.
std::vector<std::string> environment_without(const std::vector<std::string>& names);

// A TCP port on 127.0.0.1 that was free a moment ago; never the same one twice
// in this process, so that parallel scenarios do not collide.
int free_port();

// The last `lines` lines of a text file (empty when unreadable).
std::string tail_of_file(const std::filesystem::path& path, std::size_t lines);

}  // namespace graft::harness
