#include <iostream>

#include <graft/error.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

int update_command(const paths& p, const std::vector<std::string>& names) {
  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  try {
    const auto accepted = accept_pending(dirs, names, is_ci_from_process_env());
    if (accepted.empty()) {
      std::cout << "nothing pending in " << p.snapshots().string() << "\n";
      return 0;
    }
    for (const auto& name : accepted) std::cout << "accepted " << dirs.golden_path(name).string() << "\n";
    std::cout << accepted.size() << " golden snapshot" << (accepted.size() == 1 ? "" : "s")
              << " updated; review and commit them\n";
    return 0;
  } catch (const snapshot_error& e) {
    std::cerr << "graft update: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace graft::harness::cli
