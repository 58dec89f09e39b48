#include <system_error>

#include <graft/error.hpp>

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
  return files;
}

}  // namespace graft::harness::cli
