#include <graft/harness/localize/localize.hpp>

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

pass_measurements run_one(const localize_options& options, const std::string& label, const side_command& target,
                          std::map<std::string, std::string> filters) {
  pass_spec spec;
  spec.label = label;
  spec.baseline = options.baseline;
  spec.target = target;
  spec.filters = std::move(filters);
  spec.directory = options.run_directory() / "passes" / label;
  spec.timeout = options.timeout;
  return measure(run_pass(spec));
}

nlohmann::json command_json(const side_command& c) { return {{"argv", c.argv}, {"world_size", c.world_size}}; }

}  // namespace

std::map<std::string, std::string> accumulated_filters() { return {{"compare_filter", "name is not None"}}; }

std::map<std::string, std::string> local_filters(const std::string& graft_name) {
  return {{"b2t_filter", "name == " + quoted(graft_name)}, {"compare_filter", "name != " + quoted(graft_name)}};
}

localize_report run_localize(const localize_options& options) {
  std::optional<pass_measurements> calibration_accumulated, calibration_local;
  if (options.calibration_target) {
    calibration_accumulated =
        run_one(options, "calibration-accumulated", *options.calibration_target, accumulated_filters());
    calibration_local =
        run_one(options, "calibration-local", *options.calibration_target, local_filters(options.graft_name));
  }
  const pass_measurements accumulated = run_one(options, "accumulated", options.target, accumulated_filters());
  const pass_measurements local = run_one(options, "local", options.target, local_filters(options.graft_name));

  localize_report report =
      analyse(accumulated, local, calibration_accumulated ? &*calibration_accumulated : nullptr,
              calibration_local ? &*calibration_local : nullptr, options.tolerance);
  report.run_name = options.run_name;
  if (report.points.empty()) {
    report.problems.push_back("no point was measured: does the target call the grafter, and does it pass "
                              "{events} to its program?");
  } else if (accumulated.points.empty()) {
    report.problems.push_back("the accumulated pass measured no point: is the target's grafter built with "
                              "compare_filter support (DUMPER_GRAFTER_COMPARE_FILTER)?");
  }

  nlohmann::json overrides = nlohmann::json::array();
  for (const auto& [pattern, value] : options.tolerance.overrides()) overrides.push_back({pattern, value});
  report.settings = options.settings;
  report.settings["baseline"] = command_json(options.baseline);
  report.settings["target"] = command_json(options.target);
  report.settings["calibration_target"] =
      options.calibration_target ? command_json(*options.calibration_target) : nlohmann::json();
  report.settings["filters"] = {{"accumulated", accumulated_filters()}, {"local", local_filters(options.graft_name)}};
  report.settings["tolerance"] = {{"dtype_defaults", options.tolerance.dtype_defaults()},
                                  {"overrides", overrides},
                                  {"calibration_multiplier", options.tolerance.calibration_multiplier()}};
  write_report(report, options.run_directory());
  return report;
}

}  // namespace graft::harness::localize
