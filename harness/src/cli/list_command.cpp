#include <iostream>

#include <graft/harness/errors.hpp>
#include <graft/harness/snapshot_store.hpp>
#include <graft/version.hpp>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"

namespace graft::harness::cli {

namespace {

// "present", "missing", "not_used" (an expectations-only scenario) or
// "stray" (such a scenario, yet a golden exists).
std::string golden_state(const scenario& s, const snapshot_dirs& dirs) {
  const bool has_golden = std::filesystem::exists(dirs.golden_path(s.name));
  if (!s.golden) return has_golden ? "stray" : "not_used";
  return has_golden ? "present" : "missing";
}

std::string golden_words(const std::string& state) {
  if (state == "present") return "golden";
  if (state == "missing") return "NO GOLDEN";
  if (state == "stray") return "expectations only, STRAY GOLDEN";
  return "expectations only";
}

}  // namespace

scenario_listing list_scenarios(const paths& p) {
  scenario_listing listing;
  for (const auto& file : scenario_files(p.scenarios())) {
    try {
      listing.scenarios.push_back(load_scenario(file));
      listing.names.insert(listing.scenarios.back().name);
    } catch (const fixture_error& e) {
      // Its golden is not obsolete: the scenario is there, only broken.
      listing.names.insert(file.stem().string());
      listing.problems.push_back(e.what());
    }
  }
  return listing;
}

int list_command(const paths& p, bool json) {
  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  scenario_listing listing;
  try {
    listing = list_scenarios(p);
  } catch (const fixture_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  for (const auto& problem : listing.problems) std::cerr << problem << "\n";
  const auto obsolete = obsolete_goldens(dirs, listing.names);
  if (json) {
    nlohmann::json doc = {{"graft_version", version()},
                          {"scenarios", nlohmann::json::array()},
                          {"problems", listing.problems},
                          {"obsolete_goldens", nlohmann::json::array()}};
    for (const auto& s : listing.scenarios) {
      doc["scenarios"].push_back({{"name", s.name},
                                  {"description", s.description},
                                  {"baseline_world_size", s.baseline_world_size},
                                  {"target_world_size", s.target_world_size},
                                  {"golden", golden_state(s, dirs)},
                                  {"cuda", s.cuda_ranks() > 0},
                                  {"pending", std::filesystem::exists(dirs.pending_path(s.name))}});
    }
    for (const auto& name : obsolete) doc["obsolete_goldens"].push_back(dirs.golden_path(name).string());
    print_json(doc);
  } else {
    for (const auto& s : listing.scenarios) {
      std::string golden = golden_words(golden_state(s, dirs));
      if (s.cuda_ranks() > 0) golden += ", cuda";
      if (std::filesystem::exists(dirs.pending_path(s.name))) golden += ", pending";
      std::cout << s.name << "  [" << s.baseline_world_size << "+" << s.target_world_size << ", " << golden << "]  "
                << s.description << "\n";
    }
    for (const auto& name : obsolete) {
      std::cout << "obsolete golden (no scenario): " << dirs.golden_path(name).string() << "\n";
    }
  }
  return listing.problems.empty() ? 0 : 2;
}

}  // namespace graft::harness::cli
