#include <graft/error.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>

namespace graft::harness {

file_diff diff_snapshot_files(const std::filesystem::path& expected, const std::filesystem::path& actual) {
  std::vector<difference> diffs;
  try {
    diffs = diff_snapshots(load_snapshot(expected), load_snapshot(actual));
  } catch (const snapshot_error& e) {
    return {2, std::string("graft diff: ") + e.what() + "\n"};
  }
  if (diffs.empty()) return {0, "same within tolerance: " + expected.string() + " and " + actual.string() + "\n"};
  return {1, "--- expected " + expected.string() + "\n+++ actual   " + actual.string() + "\n" +
                 format_differences(diffs) + std::to_string(diffs.size()) + " difference" +
                 (diffs.size() == 1 ? "" : "s") + "\n"};
}

}  // namespace graft::harness
