#include <optional>
#include <string>

#include <graft/error.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>

namespace graft::harness {

namespace {

// Reads one side; a file that cannot be read adds its line to `problems`, so
// that one run names every bad input, in argument order.
std::optional<nlohmann::json> load_side(const std::filesystem::path& path, std::string& problems) {
  try {
    return load_snapshot(path);
  } catch (const snapshot_error& e) {
    problems += std::string("graft diff: ") + e.what() + "\n";
    return std::nullopt;
  }
}

}  // namespace

file_diff diff_snapshot_files(const std::filesystem::path& expected, const std::filesystem::path& actual) {
  std::string problems;
  const std::optional<nlohmann::json> expected_json = load_side(expected, problems);
  const std::optional<nlohmann::json> actual_json = load_side(actual, problems);
  if (!problems.empty()) return {2, problems};
  const std::vector<difference> diffs = diff_snapshots(*expected_json, *actual_json);
  if (diffs.empty()) return {0, "same within tolerance: " + expected.string() + " and " + actual.string() + "\n"};
  return {1, "--- expected " + expected.string() + "\n+++ actual   " + actual.string() + "\n" +
                 format_differences(diffs) + std::to_string(diffs.size()) + " difference" +
                 (diffs.size() == 1 ? "" : "s") + "\n"};
}

}  // namespace graft::harness
