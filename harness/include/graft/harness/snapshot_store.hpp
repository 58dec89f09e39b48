#pragma once
// The golden-snapshot workflow (insta-like review, never silent overwrite):
//
//   reports/snapshots/NAME.json          the latest actual snapshot (always written)
//   reports/snapshots/NAME.pending.json  written when it differs from the golden,
//                                        or when there is no golden yet
//   fixtures/snapshots/NAME.json         the reviewed golden; only `graft update`
//                                        writes it, by accepting a pending one
//
// Under CI (see is_ci) no pending file is written and nothing is ever written to
// fixtures: a changed or missing golden fails. Outside CI a missing golden is
// written as pending, reported "new, needs review", and the scenario fails too,
// so that no behaviour is recorded without a person looking at it.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/snapshot_diff.hpp>

namespace graft::harness {

// A scenario's name is also the stem of its files (scenarios/NAME.json, its
// snapshots, its run folder), so it is held to kScenarioNameRule: no path
// separators, no "." or "..". Locale-independent (ASCII only).
extern const char* const kScenarioNameRule;
bool is_scenario_name(const std::string& name);

// CI is set and not "", "0" or "false" (any case), or TF_BUILD is set: insta's rule.
bool is_ci(const std::map<std::string, std::string>& env);
bool is_ci_from_process_env();

struct snapshot_dirs {
  std::filesystem::path golden;  // fixtures/snapshots
  std::filesystem::path output;  // reports/snapshots

  std::filesystem::path golden_path(const std::string& name) const;
  std::filesystem::path actual_path(const std::string& name) const;
  std::filesystem::path pending_path(const std::string& name) const;
};

struct snapshot_check {
  enum class status { match, mismatch, new_snapshot, missing_in_ci };
  status outcome = status::match;
  std::vector<difference> diffs;       // for mismatch
  std::optional<std::filesystem::path> pending;  // written pending file, if any
  // A one-paragraph account for people: what happened and what to do.
  std::string message() const;
  std::string name;
  snapshot_dirs dirs;
};

// Writes the actual snapshot, compares it with the golden and writes a pending
// file as described above. Throws snapshot_error when a file cannot be read or
// written (including a golden that is not a snapshot).
snapshot_check check_snapshot(const snapshot_dirs& dirs, const std::string& name, const nlohmann::json& actual,
                              bool ci);

// Names with a pending snapshot, sorted.
std::vector<std::string> pending_names(const snapshot_dirs& dirs);

// The named pending snapshots (every pending one when names is empty), each
// checked before any is touched: throws snapshot_error for a name that is no
// scenario name or has no pending snapshot.
std::vector<std::string> checked_pending_names(const snapshot_dirs& dirs, const std::vector<std::string>& names);

// Moves each named pending snapshot over its golden (all pending ones when names
// is empty) and returns the accepted names. Throws snapshot_error for a name
// with no pending snapshot, or when ci is true (CI never writes fixtures).
std::vector<std::string> accept_pending(const snapshot_dirs& dirs, const std::vector<std::string>& names, bool ci);

// Deletes each named pending snapshot (all pending ones when names is empty)
// and returns the rejected names; the golden stays as it was. Throws
// snapshot_error for a name with no pending snapshot.
std::vector<std::string> reject_pending(const snapshot_dirs& dirs, const std::vector<std::string>& names);

// Goldens whose name is not in `scenarios`, sorted.
std::vector<std::string> obsolete_goldens(const snapshot_dirs& dirs, const std::set<std::string>& scenarios);

// Deletes the obsolete goldens and returns their names. Throws snapshot_error
// when ci is true (CI never writes fixtures) or a golden cannot be deleted.
std::vector<std::string> remove_obsolete_goldens(const snapshot_dirs& dirs, const std::set<std::string>& scenarios,
                                                 bool ci);

}  // namespace graft::harness
