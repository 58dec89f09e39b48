#include <system_error>

#include <graft/harness/path_checks.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

std::string named(const char* option, const std::filesystem::path& path, const std::string& reason) {
  return std::string(option) + " '" + path.string() + "': " + reason;
}

}  // namespace

std::vector<std::string> run_environment_problems(const paths& p) {
  std::vector<std::string> problems;
  if (const auto reason = unstartable_program_reason(p.worker)) {
    problems.push_back(named("--worker", p.worker, *reason) +
                       "; build it (cmake --build build puts graft_worker beside graft) or pass --worker PATH");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(p.plugins, ec)) {
    problems.push_back(named("--plugins", p.plugins, "not a folder") +
                       "; build the sample transform plugins (cmake --build build puts them in "
                       "BUILD/fixtures/transforms) or pass --plugins DIR");
  }
  if (const auto reason = unwritable_folder_reason(p.reports)) {
    problems.push_back(named("--reports", p.reports, *reason) + "; pass --reports DIR, a folder you can write");
  }
  return problems;
}

}  // namespace graft::harness::cli
