#include <system_error>

#include <graft/harness/path_checks.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

std::string named(const char* option, const std::filesystem::path& path, const std::string& reason) {
  return std::string(option) + " '" + path.string() + "': " + reason;
}

// Whether two folders are one, through links and relative spellings; a
// folder not yet made is compared by its spelled-out path.
bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
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
  } else if (const auto in_the_way = in_the_way_reason({p.snapshots(), p.runs()}, {p.summary()})) {
    // Else every scenario would fail to write, or the summary after all of them ran.
    problems.push_back(named("--reports", p.reports, *in_the_way) + "; remove it, or pass --reports DIR");
  } else if (same_folder(p.snapshots(), p.goldens())) {
    // A run writes every snapshot there before it compares: each golden
    // would be replaced by what it is meant to check, and pass.
    problems.push_back(named("--reports", p.reports,
                             "its snapshots/ is the goldens' folder " + p.goldens().string() +
                                 ", so a run would overwrite every golden it checks") +
                       "; pass --reports DIR, a folder apart from --fixtures");
  }
  return problems;
}

}  // namespace graft::harness::cli
