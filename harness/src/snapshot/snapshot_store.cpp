#include <graft/harness/snapshot_store.hpp>

#include <algorithm>
#include <system_error>

#include <graft/harness/errors.hpp>
#include <graft/harness/snapshot.hpp>

namespace graft::harness {

namespace {

constexpr const char* kPendingSuffix = ".pending.json";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void remove_if_present(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

void refuse_under_ci(bool ci, const std::string& what) {
  if (ci) {
    GRAFT_THROW(snapshot_error, "refusing to " + what + " under CI (CI is set); "
                                "review snapshots on a workstation and commit the goldens");
  }
}

}  // namespace

std::filesystem::path snapshot_dirs::golden_path(const std::string& name) const { return golden / (name + ".json"); }
std::filesystem::path snapshot_dirs::actual_path(const std::string& name) const { return output / (name + ".json"); }
std::filesystem::path snapshot_dirs::pending_path(const std::string& name) const {
  return output / (name + kPendingSuffix);
}

std::string snapshot_check::message() const {
  const std::string golden = dirs.golden_path(name).string();
  // The reports folder always named: the tests' folder is not graft's default.
  const std::string update = "graft update " + name + " --reports " + dirs.output.parent_path().string();
  switch (outcome) {
    case status::match:
      return "snapshot matches " + golden;
    case status::mismatch:
      return "snapshot differs from " + golden + " (" + std::to_string(diffs.size()) + " difference" +
             (diffs.size() == 1 ? "" : "s") + "):\n" + format_differences(diffs) +
             (pending ? "review with: graft diff " + golden + " " + pending->string() +
                            "\naccept with: " + update
                      : "CI: nothing written; the actual snapshot is " + dirs.actual_path(name).string());
    case status::new_snapshot:
      return "new snapshot, needs review: " + (pending ? pending->string() : std::string()) +
             "\naccept with: " + update;
    case status::missing_in_ci:
      return "no golden snapshot " + golden +
             " (CI: a missing golden fails and nothing is written). Run graft run " + name +
             " locally, review, then graft update " + name + " and commit the golden";
  }
  return "";
}

snapshot_check check_snapshot(const snapshot_dirs& dirs, const std::string& name, const nlohmann::json& actual,
                              bool ci) {
  snapshot_check check;
  check.name = name;
  check.dirs = dirs;
  write_snapshot(dirs.actual_path(name), actual);
  const std::filesystem::path golden = dirs.golden_path(name);
  if (!std::filesystem::exists(golden)) {
    check.outcome = ci ? snapshot_check::status::missing_in_ci : snapshot_check::status::new_snapshot;
  } else {
    check.diffs = diff_snapshots(load_snapshot(golden), actual);
    check.outcome = check.diffs.empty() ? snapshot_check::status::match : snapshot_check::status::mismatch;
  }
  if (check.outcome == snapshot_check::status::match || ci) {
    // A pending file left by an earlier run is stale now.
    if (!ci) remove_if_present(dirs.pending_path(name));
    return check;
  }
  write_snapshot(dirs.pending_path(name), actual);
  check.pending = dirs.pending_path(name);
  return check;
}

std::vector<std::string> pending_names(const snapshot_dirs& dirs) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dirs.output, ec)) {
    const std::string file = entry.path().filename().string();
    if (ends_with(file, kPendingSuffix)) {
      names.push_back(file.substr(0, file.size() - std::string(kPendingSuffix).size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> checked_pending_names(const snapshot_dirs& dirs, const std::vector<std::string>& names) {
  const std::vector<std::string> chosen = names.empty() ? pending_names(dirs) : names;
  for (const auto& name : chosen) {
    if (!is_scenario_name(name)) {
      GRAFT_THROW(snapshot_error, "'" + name + "' is not a scenario name (" + kScenarioNameRule +
                                      "); give names as graft list shows them");
    }
    if (!std::filesystem::exists(dirs.pending_path(name))) {
      GRAFT_THROW(snapshot_error, dirs.pending_path(name).string() +
                                      ": no pending snapshot for '" + name + "'; run graft run " + name +
                                      " first (pending ones: graft list)");
    }
  }
  return chosen;
}

std::vector<std::string> accept_pending(const snapshot_dirs& dirs, const std::vector<std::string>& names, bool ci) {
  refuse_under_ci(ci, "write goldens");
  std::vector<std::string> accepted;
  for (const auto& name : checked_pending_names(dirs, names)) {
    // Parsing it proves it is a snapshot before it becomes a golden.
    write_snapshot(dirs.golden_path(name), load_snapshot(dirs.pending_path(name)));
    remove_if_present(dirs.pending_path(name));
    accepted.push_back(name);
  }
  return accepted;
}

std::vector<std::string> reject_pending(const snapshot_dirs& dirs, const std::vector<std::string>& names) {
  std::vector<std::string> rejected;
  for (const auto& name : checked_pending_names(dirs, names)) {
    remove_if_present(dirs.pending_path(name));
    rejected.push_back(name);
  }
  return rejected;
}

std::vector<std::string> obsolete_goldens(const snapshot_dirs& dirs, const std::set<std::string>& scenarios) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dirs.golden, ec)) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    if (scenarios.count(name) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> remove_obsolete_goldens(const snapshot_dirs& dirs, const std::set<std::string>& scenarios,
                                                 bool ci) {
  refuse_under_ci(ci, "delete goldens");
  const std::vector<std::string> obsolete = obsolete_goldens(dirs, scenarios);
  for (const auto& name : obsolete) {
    std::error_code ec;
    std::filesystem::remove(dirs.golden_path(name), ec);
    if (ec) {
      GRAFT_THROW(snapshot_error, dirs.golden_path(name).string() + ": cannot delete (" + ec.message() +
                                      "); delete it by hand");
    }
  }
  return obsolete;
}

}  // namespace graft::harness
