#pragma once
// Comparing two snapshots: structure and strings exactly, integers exactly,
// floats within a tolerance (tolerance.hpp). "NaN"/"Inf"/"-Inf"/"-0.0" strings
// are numbers here: NaN equals NaN, and a NaN never equals a finite number.
// Arrays of objects (the events) are aligned first (longest common
// subsequence), so a removed or added event shows as one missing/extra item
// rather than shifting every later one.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/tolerance.hpp>

namespace graft::harness {

struct difference {
  std::string path;      // events[3].metrics.rel_diff; "$" for the whole document
  std::string expected;  // short text; "(missing)" when only actual has it
  std::string actual;    // short text; "(missing)" when only expected has it
  std::string detail;    // for numbers "|Δ|=... > tol ... (dtype)"; else a note
};

// Every difference, in document order.
std::vector<difference> diff_json(const nlohmann::json& expected, const nlohmann::json& actual,
                                  const tolerance_policy& policy);

// diff_json with the policy from expected's top-level "tolerances".
std::vector<difference> diff_snapshots(const nlohmann::json& expected, const nlohmann::json& actual);

// One line per difference: "PATH: expected E, actual A (detail)", at most
// max_lines, then "... and N more".
std::string format_differences(const std::vector<difference>& diffs, std::size_t max_lines = 100);

// `graft diff EXPECTED ACTUAL` as a function: exit_code 0 same within
// tolerance, 1 different (report holds the diff), 2 bad input (report holds a
// snapshot_error line for each file that cannot be read, in argument order).
struct file_diff {
  int exit_code = 0;
  std::string report;
  std::vector<difference> differences;  // for exit code 1
  std::vector<std::string> problems;    // for exit code 2, one per bad file
};
file_diff diff_snapshot_files(const std::filesystem::path& expected, const std::filesystem::path& actual);

// The same as JSON (graft diff --json): {"expected", "actual", "same",
// "differences": [{"path", "expected", "actual", "detail"}], "problems"}.
nlohmann::json to_json(const file_diff& result, const std::filesystem::path& expected,
                       const std::filesystem::path& actual);

}  // namespace graft::harness
