#include <iostream>
#include <set>

#include <graft/error.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

int list_command(const paths& p) {
  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  int exit_code = 0;
  std::set<std::string> names;
  std::vector<std::filesystem::path> files;
  try {
    files = scenario_files(p.scenarios());
  } catch (const fixture_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  for (const auto& file : files) {
    try {
      const scenario s = load_scenario(file);
      names.insert(s.name);
      const bool has_golden = std::filesystem::exists(dirs.golden_path(s.name));
      std::string golden = !s.golden ? (has_golden ? "expectations only, STRAY GOLDEN" : "expectations only")
                           : has_golden ? "golden"
                                        : "NO GOLDEN";
      if (s.cuda_ranks() > 0) golden += ", cuda";
      if (std::filesystem::exists(dirs.pending_path(s.name))) golden += ", pending";
      std::cout << s.name << "  [" << s.baseline_world_size << "+" << s.target_world_size << ", " << golden << "]  "
                << s.description << "\n";
    } catch (const fixture_error& e) {
      // Its golden is not obsolete: the scenario is there, only broken.
      names.insert(file.stem().string());
      std::cerr << e.what() << "\n";
      exit_code = 2;
    }
  }
  for (const auto& name : obsolete_goldens(dirs, names)) {
    std::cout << "obsolete golden (no scenario): " << dirs.golden_path(name).string() << "\n";
  }
  return exit_code;
}

}  // namespace graft::harness::cli
