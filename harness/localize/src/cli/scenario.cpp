// Localize scenarios: a JSON file with the command's options and what the run
// must conclude.
//
//   {"schema_version": 1, "description": "...",
//    "options": {"layers": 4, "bug": "attn_scale", "bug-layer": 0, "calibrate": true,
//                "dtype-tolerance": ["bfloat16=1e-7"]},
//    "expect": {"culprit": {"name": "attn_output", "layer_id": 0},   // null: no divergence
//               "accumulated_first": {"layer_id": 3},                  // optional; null: flags nothing
//               "accumulated_later": true}}                            // optional: strictly after the culprit
#include <algorithm>
#include <initializer_list>
#include <fstream>
#include <iostream>

#include <graft/error.hpp>

#include "cli/command_state.hpp"

namespace graft::harness::localize::detail {

namespace {

constexpr int kScenarioSchemaVersion = 1;

std::string option_value(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<std::string> to_arguments(const nlohmann::json& options, const std::string& file) {
  if (!options.is_object()) GRAFT_THROW(fixture_error, file + ": \"options\" must be an object of option -> value");
  std::vector<std::string> args;
  for (const auto& [key, value] : options.items()) {
    if (value.is_boolean()) {
      if (value.get<bool>()) args.push_back("--" + key);
    } else if (value.is_array()) {
      for (const auto& item : value) args.insert(args.end(), {"--" + key, option_value(item)});
    } else {
      args.insert(args.end(), {"--" + key, option_value(value)});
    }
  }
  return args;
}

std::string describe(const localize_report& report, const std::optional<std::size_t>& index) {
  return index ? report.points[*index].label : "nothing";
}

// A point expectation: null means "no point"; an object's fields must all match.
bool point_matches(const nlohmann::json& expected, const localize_report& report,
                   const std::optional<std::size_t>& index) {
  if (expected.is_null()) return !index;
  if (!index) return false;
  const point_result& p = report.points[*index];
  if (expected.contains("name") && expected["name"] != p.name) return false;
  if (expected.contains("layer_id") && (!p.layer_id || expected["layer_id"] != *p.layer_id)) return false;
  return true;
}

void expect_keys(const nlohmann::json& object, std::initializer_list<const char*> allowed, const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; })) {
      std::string list;
      for (const char* k : allowed) list += (list.empty() ? "" : ", ") + std::string(k);
      GRAFT_THROW(fixture_error, where + ": unknown key '" + key + "'; expected one of: " + list);
    }
  }
}

// null (no point) or an object of name and/or layer_id.
void check_point(const nlohmann::json& point, const std::string& where) {
  if (point.is_null()) return;
  if (!point.is_object()) GRAFT_THROW(fixture_error, where + ": expected null or {\"name\": ..., \"layer_id\": ...}");
  expect_keys(point, {"name", "layer_id"}, where);
  if (point.contains("name") && !point["name"].is_string()) GRAFT_THROW(fixture_error, where + ".name: expected a string");
  if (point.contains("layer_id") && !point["layer_id"].is_number_integer()) {
    GRAFT_THROW(fixture_error, where + ".layer_id: expected an integer");
  }
}

}  // namespace

void check_scenario_format(const nlohmann::json& scenario, const std::string& file) {
  if (!scenario.is_object()) GRAFT_THROW(fixture_error, file + ": not a JSON object; see fixtures/localize/ for the format");
  expect_keys(scenario, {"schema_version", "description", "options", "expect"}, file);
  if (!scenario.contains("schema_version") || !scenario["schema_version"].is_number_integer() ||
      scenario["schema_version"] != kScenarioSchemaVersion) {
    GRAFT_THROW(fixture_error, file + ": schema_version must be " + std::to_string(kScenarioSchemaVersion));
  }
  if (!scenario.contains("expect") || !scenario["expect"].is_object() || scenario["expect"].empty()) {
    GRAFT_THROW(fixture_error, file + ": needs a non-empty \"expect\" object (what the run must conclude)");
  }
  const nlohmann::json& expect = scenario["expect"];
  expect_keys(expect, {"culprit", "accumulated_first", "accumulated_later"}, file + ": expect");
  for (const char* point : {"culprit", "accumulated_first"}) {
    if (expect.contains(point)) check_point(expect[point], file + ": expect." + point);
  }
  if (expect.contains("accumulated_later") && !expect["accumulated_later"].is_boolean()) {
    GRAFT_THROW(fixture_error, file + ": expect.accumulated_later: expected true or false");
  }
}

std::vector<std::string> check_expectations(const nlohmann::json& expect, const localize_report& report) {
  std::vector<std::string> misses;
  if (expect.contains("culprit") && !point_matches(expect["culprit"], report, report.culprit)) {
    misses.push_back("culprit: expected " + expect["culprit"].dump() + ", got " + describe(report, report.culprit));
  }
  if (expect.contains("accumulated_first") &&
      !point_matches(expect["accumulated_first"], report, report.accumulated_first)) {
    misses.push_back("accumulated_first: expected " + expect["accumulated_first"].dump() + ", got " +
                     describe(report, report.accumulated_first));
  }
  if (expect.value("accumulated_later", false)) {
    const bool later = report.culprit && (!report.accumulated_first || *report.accumulated_first > *report.culprit);
    if (!later) {
      misses.push_back("accumulated_later: expected the accumulated error alone to flag a point after the culprit "
                       "(or none); culprit " + describe(report, report.culprit) + ", accumulated first " +
                       describe(report, report.accumulated_first));
    }
  }
  return misses;
}

int run_scenario(const command_state& command_line) {
  const std::string file = command_line.scenario;
  std::ifstream in(file);
  const nlohmann::json scenario = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (scenario.is_discarded()) GRAFT_THROW(fixture_error, file + ": not JSON; see fixtures/localize/ for the format");
  check_scenario_format(scenario, file);

  command_state state;
  CLI::App parser{"scenario options"};
  add_options(parser, state);
  std::vector<std::string> args = to_arguments(scenario.value("options", nlohmann::json::object()), file);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last-first
  try {
    parser.parse(args);
  } catch (const CLI::ParseError& e) {
    GRAFT_THROW(fixture_error, file + ": options: " + e.what());
  }
  if (!state.scenario.empty()) GRAFT_THROW(fixture_error, file + ": a scenario cannot name another scenario");
  // Where to run is the caller's business, not the scenario's.
  state.reports = command_line.reports;
  state.model = command_line.model;
  state.timeout_s = command_line.timeout_s;
  state.name = command_line.name.empty() ? std::filesystem::path(file).stem().string() : command_line.name;

  const localize_options options = to_localize_options(state);
  const localize_report report = run_localize(options);
  std::cout << "scenario " << state.name << ": " << scenario.value("description", std::string()) << "\n\n"
            << format_table(report) << "\n" << format_summary(report)
            << "report: " << (options.run_directory() / "report.json").string() << "\n";
  if (!report.problems.empty()) return 2;
  const auto misses = check_expectations(scenario["expect"], report);
  for (const auto& miss : misses) std::cout << "EXPECTATION FAILED: " << miss << "\n";
  std::cout << (misses.empty() ? "scenario passed\n" : "scenario failed\n");
  return misses.empty() ? 0 : 1;
}

}  // namespace graft::harness::localize::detail
