// The built-in model is a program like any other to localize: it knows the
// options it forwards, not which sizes or bugs the model takes. The model
// answers that itself (graft_model --check), once, before any pass: a refused
// setting is then one message at once, not a pass in which the other side
// waits out --timeout for a rank that never joined.
#include "cli/command_state.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <system_error>

#include <graft/harness/process.hpp>

namespace graft::harness::localize::detail {

namespace {

constexpr std::size_t kAnswerLines = 15;

// Unique per process and call: commands running in parallel share the folder.
std::filesystem::path answer_file() {
  static std::atomic<int> calls{0};
  return std::filesystem::temp_directory_path() /
         ("graft_localize_model_check." + std::to_string(::getpid()) + "." + std::to_string(calls++) + ".log");
}

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

std::optional<std::string> model_refusal(std::vector<std::string> model_argv, std::chrono::seconds timeout) {
  model_argv.push_back("--check");
  const std::filesystem::path answer = answer_file();
  std::vector<child_process> check;
  check.emplace_back(model_argv, environment_without({}), answer);
  const bool answered = wait_all(check, std::chrono::steady_clock::now() + timeout);
  std::optional<std::string> refusal;
  if (!answered) {
    check.front().kill();
    refusal = model_argv.front() + " --check gave no answer within " + std::to_string(timeout.count()) +
              " s (raise --timeout?)";
  } else if (check.front().describe_status() != "exit 0") {
    refusal = without_trailing_newlines(tail_of_file(answer, kAnswerLines));
    if (refusal->empty()) refusal = model_argv.front() + " --check ended with " + check.front().describe_status();
  }
  std::error_code ignored;
  std::filesystem::remove(answer, ignored);
  return refusal;
}

}  // namespace graft::harness::localize::detail
