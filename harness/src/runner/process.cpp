#include <graft/harness/process.hpp>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <graft/error.hpp>

extern char** environ;

namespace graft::harness {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(10);

// posix_spawn file actions and attributes, released on every path.
struct spawn_setup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  spawn_setup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~spawn_setup() {
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
  }
};

// The process groups of the children not yet reaped, for the signal handler:
// a fixed table of atomics, since a handler may neither lock nor allocate.
// (A child beyond the table is still killed with its group when late.)
constexpr std::size_t kTrackedGroups = 4096;
std::atomic<pid_t> tracked_groups[kTrackedGroups];

void track(pid_t group) {
  for (auto& slot : tracked_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
}

void untrack(pid_t group) {
  for (auto& slot : tracked_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// A child runs from inside posix_spawn on, but is tracked only after it: a
// handler that killed the tracked groups in between would miss it. So a spawn
// holds the termination signals off its own thread, and a handler on another
// thread waits for spawns in flight to be tracked; a spawn that begins once a
// handler has started does not start a child (the process is about to die).
std::atomic<int> spawns_in_flight{0};
std::atomic<bool> dying_of_a_signal{false};

// The signals the handler takes, and so the ones a spawn holds off.
constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (const int signal_number : kTerminationSignals) sigaddset(&set, signal_number);
  return set;
}

class spawn_window {
 public:
  spawn_window() {
    const sigset_t blocked = termination_signals();
    pthread_sigmask(SIG_BLOCK, &blocked, &before_);
    spawns_in_flight.fetch_add(1);
    if (dying_of_a_signal.load()) {
      spawns_in_flight.fetch_sub(1);
      pthread_sigmask(SIG_SETMASK, &before_, nullptr);
      for (;;) ::pause();  // until the handler's own death ends the process
    }
  }
  ~spawn_window() {
    spawns_in_flight.fetch_sub(1);
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  spawn_window(const spawn_window&) = delete;
  spawn_window& operator=(const spawn_window&) = delete;

  // The child starts with the mask its parent had before the window.
  const sigset_t& mask_before() const { return before_; }

 private:
  sigset_t before_{};
};

extern "C" void kill_groups_then_die(int signal_number) {
  dying_of_a_signal.store(true);
  while (spawns_in_flight.load() > 0) {
    const timespec a_moment{0, 1000000};
    ::nanosleep(&a_moment, nullptr);
  }
  for (auto& slot : tracked_groups) {
    const pid_t group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void kill_children_on_termination_signals() {
  struct sigaction action {};
  action.sa_handler = kill_groups_then_die;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kTerminationSignals) ::sigaction(signal_number, &action, nullptr);
}

child_process::child_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                             const std::filesystem::path& log) {
  spawn_setup setup;
  const std::string log_path = log.string();
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&setup.actions, 1, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> variables;
  for (const auto& v : env) variables.push_back(const_cast<char*>(v.c_str()));
  variables.push_back(nullptr);
  const spawn_window window;
  // Its own process group (its pid), so that whatever it starts in turn (a
  // shell's commands) is killed with it.
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&setup.attributes, 0);
  posix_spawnattr_setsigmask(&setup.attributes, &window.mask_before());
  const int rc =
      posix_spawn(&pid_, argv.at(0).c_str(), &setup.actions, &setup.attributes, args.data(), variables.data());
  if (rc != 0) {
    pid_ = -1;
    GRAFT_THROW(error, argv.at(0) + ": cannot start: " + std::strerror(rc));
  }
  track(pid_);
}

child_process::child_process(child_process&& other) noexcept : pid_(other.pid_), status_(other.status_) {
  other.pid_ = -1;
}

child_process::~child_process() {
  if (running()) kill();
}

bool child_process::poll() {
  if (pid_ <= 0 || status_) return true;
  // Seen exited but not yet reaped, so that its group id cannot be reused
  // while the rest of the group (anything it left running) is killed.
  siginfo_t info{};
  const int rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  if (rc < 0 && errno == EINTR) return false;
  if (rc == 0 && info.si_pid != pid_) return false;  // still running
  if (rc == 0) ::kill(-pid_, SIGKILL);
  reap();
  return true;
}

void child_process::reap() {
  int status = 0;
  pid_t rc = 0;
  while ((rc = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  status_ = rc == pid_ ? status : 0;
  untrack(pid_);
}

void child_process::kill() {
  if (!running()) return;
  ::kill(-pid_, SIGKILL);
  reap();
}

std::string child_process::describe_status() const {
  if (!status_) return "running";
  if (WIFEXITED(*status_)) return "exit " + std::to_string(WEXITSTATUS(*status_));
  if (WIFSIGNALED(*status_)) return "killed by signal " + std::to_string(WTERMSIG(*status_));
  return "status " + std::to_string(*status_);
}

bool wait_all(std::vector<child_process>& processes, std::chrono::steady_clock::time_point deadline) {
  while (true) {
    bool all_done = true;
    for (auto& p : processes) all_done = p.poll() && all_done;
    if (all_done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::vector<std::string> environment_without(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (char** v = environ; *v != nullptr; ++v) {
    const std::string entry = *v;
    const std::string name = entry.substr(0, entry.find('='));
    if (std::find(names.begin(), names.end(), name) == names.end()) out.push_back(entry);
  }
  return out;
}

int free_port() {
  static std::mutex mutex;
  static std::set<int> handed_out;
  std::lock_guard<std::mutex> lock(mutex);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    ::close(fd);
    if (!ok) break;
    const int port = ntohs(address.sin_port);
    if (handed_out.insert(port).second) return port;
  }
  GRAFT_THROW(error, "cannot find a free TCP port on 127.0.0.1 (are sockets allowed here?)");
}

std::string tail_of_file(const std::filesystem::path& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += l + "\n";
  return out;
}

}  // namespace graft::harness
