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
#include <iostream>

#include <graft/harness/errors.hpp>
#include <graft/harness/json_checker.hpp>
#include <graft/harness/scenario.hpp>

#include "cli/command_state.hpp"

namespace graft::harness::localize::detail {

namespace {

using graft::harness::detail::json_checker;

constexpr int kScenarioSchemaVersion = 1;
constexpr const char* kScenarioFormatDoc = "docs/localize.md, Localize scenarios";

std::string option_value(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The options of a checked scenario as a command line.
std::vector<std::string> to_arguments(const nlohmann::json& options) {
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

// expect.KEY, when present and not null (no point): an object of name and/or layer_id.
void check_point(const nlohmann::json& expect, const char* key, json_checker& check) {
  const auto it = expect.find(key);
  if (it == expect.end() || it->is_null()) return;
  const std::string at = json_checker::key_path("expect", key);
  if (!it->is_object()) {
    check.add(at, "expected null (no point) or {\"name\": ..., \"layer_id\": ...}, got " +
                      json_checker::describe(*it));
    return;
  }
  if (it->empty()) {
    // It would match any point: a scenario that checks nothing.
    check.add(at, "{} matches any point; name it ({\"name\": ..., \"layer_id\": ...}) or give null for no point");
    return;
  }
  check.known_keys(*it, at, {"name", "layer_id"});
  check.string(*it, "name", at, false);
  check.integer(*it, "layer_id", at, false);
}

}  // namespace

void check_scenario_format(const nlohmann::json& scenario, const std::string& file) {
  json_checker check;
  if (check.is_object(scenario, "")) {
    check.known_keys(scenario, "", {"schema_version", "description", "options", "expect"});
    const auto version = check.integer(scenario, "schema_version", "", true);
    if (version && *version != kScenarioSchemaVersion) {
      check.add("schema_version", "must be " + std::to_string(kScenarioSchemaVersion) + ", got " +
                                      std::to_string(*version));
    }
    check.string(scenario, "description", "", false);
    const auto options = scenario.find("options");
    if (options != scenario.end() && !options->is_object()) {
      check.add("options", "expected an object of option -> value, got " + json_checker::describe(*options));
    }
    const auto expect = scenario.find("expect");
    if (expect == scenario.end() || !expect->is_object() || expect->empty()) {
      check.add("expect", "required: a non-empty object saying what the run must conclude");
    } else {
      check.known_keys(*expect, "expect", {"culprit", "accumulated_first", "accumulated_later"});
      for (const char* point : {"culprit", "accumulated_first"}) check_point(*expect, point, check);
      check.boolean(*expect, "accumulated_later", "expect");
    }
  }
  check.throw_if_problems(file, kScenarioFormatDoc);
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
  const nlohmann::json scenario = read_fixture_json(file, kScenarioFormatDoc);
  check_scenario_format(scenario, file);

  command_state state;
  CLI::App parser{"scenario options"};
  add_options(parser, state);
  std::vector<std::string> args = to_arguments(scenario.value("options", nlohmann::json::object()));
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
  write_page(options, &std::cout);
  if (!report.problems.empty()) return 2;
  const auto misses = check_expectations(scenario["expect"], report);
  for (const auto& miss : misses) std::cout << "EXPECTATION FAILED: " << miss << "\n";
  std::cout << (misses.empty() ? "scenario passed\n" : "scenario failed\n");
  return misses.empty() ? 0 : 1;
}

}  // namespace graft::harness::localize::detail
