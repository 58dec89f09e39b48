#include <graft/localize/localize.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace graft::harness::localize {

namespace {

// Python-style single quotes, with the name escaped for the filter language.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string count_of(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Runs the passes in turn, each announced through options.progress as
// "[i/n] label ..." when it starts and when it ends. Once a pass's processes
// fail (an exit, a timeout, no events), the later passes are not run: they
// would fail alike, each after up to the whole timeout, and the run's result
// is a failed run either way.
class pass_sequence {
 public:
  pass_sequence(const localize_options& options, std::size_t total) : options_(options), total_(total) {}

  pass_measurements run(const std::string& label, const side_command& target, const std::optional<side_command>& launch,
                        std::map<std::string, std::string> filters) {
    const std::string step = "[" + std::to_string(++done_) + "/" + std::to_string(total_) + "] " + label;
    if (failed_) {
      tell(step + ": not run, since the " + *failed_ + " pass failed");
      return {label, {}, {label + ": not run, since the " + *failed_ + " pass failed; fix that first"}};
    }
    pass_spec spec;
    spec.label = label;
    spec.baseline = options_.baseline;
    spec.target = target;
    spec.launch = launch;
    spec.filters = std::move(filters);
    spec.directory = options_.run_directory() / "passes" / label;
    spec.timeout = options_.timeout;
    tell(step + ": " + count_of(static_cast<std::size_t>(spec.baseline.world_size), "baseline rank") + " + " +
         count_of(static_cast<std::size_t>(spec.target.world_size), "target rank") + ", up to " +
         std::to_string(spec.timeout.count()) + " s; logs in " + spec.directory.string());
    const auto start = std::chrono::steady_clock::now();
    const pass_outcome outcome = run_pass(spec);
    if (!outcome.ok()) failed_ = label;
    pass_measurements measured = measure(outcome);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::string result = count_of(measured.points.size(), "point") + " measured";
    if (!measured.problems.empty()) result += ", " + count_of(measured.problems.size(), "problem");
    tell(step + " ... " + result + " (" + seconds + ")");
    return measured;
  }

  // Whether a pass's processes failed (and the passes after it were not run).
  bool failed() const { return failed_.has_value(); }

 private:
  void tell(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }
  const localize_options& options_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::optional<std::string> failed_;  // the label of the pass that failed
};

nlohmann::json command_json(const side_command& c) { return {{"argv", c.argv}, {"world_size", c.world_size}}; }

bool grafted_any(const pass_measurements& pass) {
  return std::any_of(pass.points.begin(), pass.points.end(),
                     [](const measured_point& p) { return p.value.grafted; });
}

// Without a grafted input every local error is the accumulated one, so the
// run cannot tell a point's own error from what it inherited. Either no point
// has the name, or the grafts of those that do were skipped (the pass's
// problems say why).
std::string nothing_grafted_problem(const std::string& graft_name, const pass_measurements& accumulated) {
  std::vector<std::string> names;
  for (const measured_point& p : accumulated.points) {
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
  }
  const std::string consequence =
      ", so each local error is the accumulated one and no culprit can be told from inherited error";
  if (std::find(names.begin(), names.end(), graft_name) != names.end()) {
    return "the local pass grafted none of the points named '" + graft_name + "'" + consequence +
           "; the local pass's other problems say why each graft was skipped";
  }
  std::string seen;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) seen += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > 8) seen += ", ...";
  return "the local pass grafted no point: no dump point is named '" + graft_name + "' (--graft-name)" +
         consequence + "; pass --graft-name with the name of the point that feeds each layer (this run's points: " +
         seen + ")";
}

}  // namespace

std::map<std::string, std::string> accumulated_filters() { return {{"compare_filter", "name is not None"}}; }

std::map<std::string, std::string> local_filters(const std::string& graft_name) {
  return {{"b2t_filter", "name == " + quoted(graft_name)}, {"compare_filter", "name != " + quoted(graft_name)}};
}

localize_report run_localize(const localize_options& options) {
  std::optional<pass_measurements> calibration_accumulated, calibration_local;
  pass_sequence passes(options, options.calibration_target ? 4 : 2);
  if (options.calibration_target) {
    calibration_accumulated = passes.run("calibration-accumulated", *options.calibration_target,
                                         options.calibration_launch, accumulated_filters());
    calibration_local = passes.run("calibration-local", *options.calibration_target, options.calibration_launch,
                                   local_filters(options.graft_name));
  }
  const pass_measurements accumulated =
      passes.run("accumulated", options.target, options.launch, accumulated_filters());
  const pass_measurements local =
      passes.run("local", options.target, options.launch, local_filters(options.graft_name));

  localize_report report =
      analyse(accumulated, local, calibration_accumulated ? &*calibration_accumulated : nullptr,
              calibration_local ? &*calibration_local : nullptr, options.tolerance);
  report.run_name = options.run_name;
  // After a failed pass, its problems already say why points are missing.
  if (!passes.failed() && report.points.empty()) {
    report.problems.push_back("no point was measured: does the target call the grafter at its dump points?");
  } else if (!passes.failed() && accumulated.points.empty()) {
    report.problems.push_back("the accumulated pass measured no point: is the target's grafter built with "
                              "compare_filter support (DUMPER_GRAFTER_COMPARE_FILTER)?");
  } else if (!passes.failed() && !local.points.empty() && !grafted_any(local)) {
    report.problems.push_back(nothing_grafted_problem(options.graft_name, accumulated));
  }

  nlohmann::json overrides = nlohmann::json::array();
  for (const auto& [pattern, value] : options.tolerance.overrides()) overrides.push_back({pattern, value});
  report.settings = options.settings;
  report.settings["baseline"] = command_json(options.baseline);
  report.settings["target"] = command_json(options.target);
  report.settings["calibration_target"] =
      options.calibration_target ? command_json(*options.calibration_target) : nlohmann::json();
  report.settings["launch"] = options.launch ? command_json(*options.launch) : nlohmann::json();
  report.settings["calibration_launch"] =
      options.calibration_launch ? command_json(*options.calibration_launch) : nlohmann::json();
  report.settings["filters"] = {{"accumulated", accumulated_filters()}, {"local", local_filters(options.graft_name)}};
  report.settings["tolerance"] = {{"dtype_defaults", options.tolerance.dtype_defaults()},
                                  {"overrides", overrides},
                                  {"calibration_multiplier", options.tolerance.calibration_multiplier()}};
  write_report(report, options.run_directory());
  return report;
}

}  // namespace graft::harness::localize
