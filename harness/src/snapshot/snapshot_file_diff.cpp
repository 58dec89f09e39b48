#include <optional>
#include <string>
#include <vector>

#include <graft/harness/errors.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_diff.hpp>

namespace graft::harness {

namespace {

// Reads one side; a file that cannot be read adds its problem, so that one
// run names every bad input, in argument order.
std::optional<nlohmann::json> load_side(const std::filesystem::path& path, std::vector<std::string>& problems) {
  try {
    return load_snapshot(path);
  } catch (const snapshot_error& e) {
    problems.push_back(e.what());
    return std::nullopt;
  }
}

}  // namespace

file_diff diff_snapshot_files(const std::filesystem::path& expected, const std::filesystem::path& actual) {
  file_diff result;
  const std::optional<nlohmann::json> expected_json = load_side(expected, result.problems);
  const std::optional<nlohmann::json> actual_json = load_side(actual, result.problems);
  if (!result.problems.empty()) {
    result.exit_code = 2;
    for (const auto& problem : result.problems) result.report += "graft diff: " + problem + "\n";
    return result;
  }
  result.differences = diff_snapshots(*expected_json, *actual_json);
  const std::size_t n = result.differences.size();
  if (n == 0) {
    result.report = "same within tolerance: " + expected.string() + " and " + actual.string() + "\n";
    return result;
  }
  result.exit_code = 1;
  result.report = "--- expected " + expected.string() + "\n+++ actual   " + actual.string() + "\n" +
                  format_differences(result.differences) + std::to_string(n) + " difference" + (n == 1 ? "" : "s") +
                  "\n";
  return result;
}

nlohmann::json to_json(const file_diff& result, const std::filesystem::path& expected,
                       const std::filesystem::path& actual) {
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : result.differences) {
    differences.push_back({{"path", d.path}, {"expected", d.expected}, {"actual", d.actual}, {"detail", d.detail}});
  }
  return {{"expected", expected.string()}, {"actual", actual.string()},   {"same", result.exit_code == 0},
          {"differences", differences},    {"problems", result.problems}};
}

}  // namespace graft::harness
