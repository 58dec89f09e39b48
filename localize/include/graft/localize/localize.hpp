#pragma once
// graft localize: names the dump point where a target first goes wrong on its
// own. Two passes over the same baseline and target commands:
//
//   accumulated  compare_filter matches every point: each target point is
//                measured against the baseline's, nothing is written, so the
//                error is everything upstream plus the point's own.
//   local        b2t_filter grafts every `graft_name` point (layer_input) from
//                the baseline, compare_filter measures the rest: each layer
//                starts from the baseline's input, so a point's error is its
//                layer's own.
//
// With a calibration target, both passes run again against it first, and the
// noise floor they measure sets the thresholds (see tolerance.hpp).
// run_localize blocks while the processes run; problems of the children are
// data in the report; it throws graft::error only when nothing can start.

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <graft/localize/passes.hpp>
#include <graft/localize/report.hpp>
#include <graft/localize/tolerance.hpp>

namespace graft::harness::localize {

struct localize_options {
  std::string run_name = "localize";
  std::filesystem::path reports_dir = "reports";  // the run goes to reports_dir/localize/run_name
  side_command baseline;
  side_command target;
  std::optional<side_command> calibration_target;  // set: calibrate
  // Set: one command starts every rank (pass_spec::launch); the calibration
  // passes then run calibration_launch.
  std::optional<side_command> launch;
  std::optional<side_command> calibration_launch;
  tolerance_policy tolerance;
  std::string graft_name = "layer_input";
  std::chrono::seconds timeout{120};
  nlohmann::json settings = nlohmann::json::object();  // recorded in the report as given
  // Told one line as each pass starts and one as it ends (a pass of a user's
  // program may take minutes); unset: silent.
  std::function<void(const std::string&)> progress;

  std::filesystem::path run_directory() const { return reports_dir / "localize" / run_name; }
};

// The filter expressions of the two passes.
std::map<std::string, std::string> accumulated_filters();
std::map<std::string, std::string> local_filters(const std::string& graft_name);

// Runs the passes, analyses them and writes report.json, table.txt and
// plot.svg (plus each pass's logs and events under passes/).
localize_report run_localize(const localize_options& options);

}  // namespace graft::harness::localize
