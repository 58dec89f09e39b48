#include <iostream>

#include <graft/harness/errors.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

int accept(const paths& p, const snapshot_dirs& dirs, const std::vector<std::string>& names) {
  const auto accepted = accept_pending(dirs, names, is_ci_from_process_env());
  if (accepted.empty()) {
    std::cout << "nothing pending in " << p.snapshots().string() << "\n";
    return 0;
  }
  for (const auto& name : accepted) std::cout << "accepted " << dirs.golden_path(name).string() << "\n";
  std::cout << accepted.size() << " golden snapshot" << (accepted.size() == 1 ? "" : "s")
            << " updated; review and commit them\n";
  return 0;
}

// A scenario file that fails to load still owns its golden, so pruning
// never deletes what a broken scenario will need once mended.
int prune(const paths& p, const snapshot_dirs& dirs) {
  scenario_listing listing;
  try {
    listing = list_scenarios(p);
  } catch (const fixture_error& e) {
    std::cerr << "graft update --prune: " << e.what() << "\n";
    return 2;
  }
  const auto removed = remove_obsolete_goldens(dirs, listing.names, is_ci_from_process_env());
  for (const auto& name : removed) std::cout << "deleted obsolete golden " << dirs.golden_path(name).string() << "\n";
  std::cout << removed.size() << " obsolete golden" << (removed.size() == 1 ? "" : "s") << " deleted\n";
  return 0;
}

}  // namespace

int update_command(const paths& p, const std::vector<std::string>& names, bool prune_obsolete) {
  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  try {
    return prune_obsolete ? prune(p, dirs) : accept(p, dirs, names);
  } catch (const snapshot_error& e) {
    std::cerr << "graft update: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace graft::harness::cli
