#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// The worker is started with posix_spawn, which takes the path as given
// (relative to the working directory) and never searches PATH.
std::optional<std::string> worker_problem(const std::filesystem::path& worker) {
  const std::string fix = "; build it (cmake --build build puts graft_worker beside graft) or pass --worker PATH";
  std::error_code ec;
  const auto status = std::filesystem::status(worker, ec);
  if (!std::filesystem::exists(status)) return "--worker " + quoted(worker) + ": no such file" + fix;
  if (!std::filesystem::is_regular_file(status)) return "--worker " + quoted(worker) + ": not a file" + fix;
  if (::access(worker.c_str(), X_OK) != 0) {
    return "--worker " + quoted(worker) + ": cannot be executed (" + std::strerror(errno) + ")" + fix;
  }
  return std::nullopt;
}

std::optional<std::string> plugins_problem(const std::filesystem::path& plugins) {
  std::error_code ec;
  if (std::filesystem::is_directory(plugins, ec)) return std::nullopt;
  return "--plugins " + quoted(plugins) +
         ": not a folder; build the sample transform plugins (cmake --build build puts them in "
         "BUILD/fixtures/transforms) or pass --plugins DIR";
}

std::optional<std::string> reports_problem(const std::filesystem::path& reports) {
  const std::string fix = "; pass --reports DIR, a folder you can write";
  std::error_code ec;
  std::filesystem::create_directories(reports, ec);
  if (ec) return "--reports " + quoted(reports) + ": cannot create this folder (" + ec.message() + ")" + fix;
  if (::access(reports.c_str(), W_OK | X_OK) != 0) {
    return "--reports " + quoted(reports) + ": cannot write in this folder (" + std::strerror(errno) + ")" + fix;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> run_environment_problems(const paths& p) {
  std::vector<std::string> problems;
  for (auto problem : {worker_problem(p.worker), plugins_problem(p.plugins), reports_problem(p.reports)}) {
    if (problem) problems.push_back(std::move(*problem));
  }
  return problems;
}

}  // namespace graft::harness::cli
