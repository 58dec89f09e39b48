#pragma once
// The outcome of a localize run as data, and its three renderings: a text
// table, a JSON report (schema_version 1) and an SVG plot of accumulated vs
// local rel_diff per point on a log scale.
//
// Verdicts per point:
//   diverges   its local error (the baseline fed to its layer) breaks tolerance
//   inherited  only its accumulated error does: the error came from upstream
//   ok         both within tolerance
//   missing    the local pass did not measure it
// The culprit is the first "diverges" point in execution order.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/localize/points.hpp>
#include <graft/localize/tolerance.hpp>

namespace graft::harness::localize {

inline constexpr int kReportSchemaVersion = 1;

struct point_result {
  std::string key, name, label;
  std::optional<std::int64_t> layer_id;
  std::optional<measurement> accumulated, local;
  std::optional<double> floor_accumulated, floor_local;  // from calibration
  std::optional<threshold> accumulated_threshold, local_threshold;
  bool accumulated_breaks = false;
  bool local_breaks = false;
  std::string verdict;
};

struct localize_report {
  std::string run_name;
  std::vector<point_result> points;
  std::optional<std::size_t> culprit;            // index into points
  std::optional<std::size_t> accumulated_first;  // first point whose accumulated error breaks tolerance
  bool calibrated = false;
  std::vector<std::string> problems;  // any: the run is not trustworthy
  nlohmann::json settings = nlohmann::json::object();  // commands, filters, tolerance policy

  bool diverges() const { return culprit.has_value(); }
};

// Joins the passes point by point and applies the policy. Calibration passes
// are optional (both or neither). Pure: no processes, no files.
localize_report analyse(const pass_measurements& accumulated, const pass_measurements& local,
                        const pass_measurements* calibration_accumulated, const pass_measurements* calibration_local,
                        const tolerance_policy& policy);

// The table, then the culprit line and the accumulated-alone line.
std::string format_table(const localize_report& report);
std::string format_summary(const localize_report& report);
nlohmann::json to_json(const localize_report& report);
std::string render_svg(const localize_report& report);

// Writes report.json, table.txt and plot.svg into directory.
void write_report(const localize_report& report, const std::filesystem::path& directory);

// What stands where a run writes (directory is no folder, or one of its
// report files is a folder), for the command to refuse before any pass runs
// rather than fail after both did; nullopt when nothing does.
std::optional<std::string> report_folder_problem(const std::filesystem::path& directory);

}  // namespace graft::harness::localize
