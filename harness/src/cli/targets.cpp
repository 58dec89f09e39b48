#include <set>
#include <system_error>

#include <graft/harness/errors.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

std::vector<std::filesystem::path> resolve_targets(const paths& p, const std::vector<std::string>& targets,
                                                   bool* full) {
  *full = targets.empty();
  if (targets.empty()) return scenario_files(p.scenarios());
  std::vector<std::filesystem::path> files;
  for (const auto& target : targets) {
    const std::filesystem::path path(target);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      if (std::filesystem::equivalent(path, p.scenarios(), ec)) *full = true;
      for (auto& f : scenario_files(path)) files.push_back(std::move(f));
    } else if (std::filesystem::is_regular_file(path, ec)) {
      files.push_back(path);
    } else if (std::filesystem::is_regular_file(p.scenarios() / (target + ".json"), ec)) {
      files.push_back(p.scenarios() / (target + ".json"));
    } else {
      GRAFT_THROW(fixture_error, target + ": not a scenario file, a folder of scenarios, or the name of one in " +
                                     p.scenarios().string() + " (see graft list)");
    }
  }
  // A scenario named twice (by name and by path, say) runs once: two runs of
  // it at a time would share its run folder and pending snapshot.
  std::vector<std::filesystem::path> unique;
  std::set<std::filesystem::path> seen;
  for (auto& f : files) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(f, ec);
    if (seen.insert(ec ? f : canonical).second) unique.push_back(std::move(f));
  }
  return unique;
}

}  // namespace graft::harness::cli
