#include <map>

#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness::report {

namespace {

constexpr int kLocalizeSchemaVersion = 1;  // localize/report.hpp, kReportSchemaVersion

// A rel_diff as report.json holds it: a number, or "NaN"/"Inf" spelled.
std::string value_text(const nlohmann::json& v) {
  if (v.is_number()) return format_significant(v.get<double>(), 3);
  if (v.is_string()) return v.get<std::string>();
  return "-";
}

const nlohmann::json& field(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// "mlp_output[2] (layer 2)"
std::string point_text(const nlohmann::json& ref) {
  if (!ref.is_object()) return "none";
  const nlohmann::json& layer = field(ref, "layer_id");
  return string_field(ref, "label", "?") + (layer.is_number_integer() ? " (layer " + layer.dump() + ")" : "");
}

// The culprit with the local error that convicts it: "mlp_output[2] (layer 2):
// local rel_diff 0.031 > tolerance 0.001 (default bfloat16)".
std::string culprit_text(const nlohmann::json& report) {
  const nlohmann::json& culprit = field(report, "culprit");
  if (!culprit.is_object()) return "none: no point's local error breaks its tolerance";
  std::string text = point_text(culprit);
  const nlohmann::json& index = field(culprit, "index");
  const nlohmann::json& points = field(report, "points");
  if (index.is_number_unsigned() && points.is_array() && index.get<std::size_t>() < points.size()) {
    const nlohmann::json& local = field(points[index.get<std::size_t>()], "local");
    text += ": local rel_diff " + value_text(field(local, "rel_diff")) + " > tolerance " +
            value_text(field(local, "threshold")) + " (" + string_field(local, "rule", "?") + ")";
  }
  return text;
}

// "bfloat16 0.001, float32 1e-06; overrides: attn_* 0.01; calibrated thresholds:
// 10 x noise floor"
std::string tolerance_text(const nlohmann::json& report) {
  const nlohmann::json& tolerance = field(field(report, "settings"), "tolerance");
  if (!tolerance.is_object()) return "not recorded";
  std::string text;
  const nlohmann::json& defaults = field(tolerance, "dtype_defaults");
  if (defaults.is_object()) {
    for (const auto& [dtype, value] : defaults.items()) {
      text += (text.empty() ? "" : ", ") + dtype + " " + value_text(value);
    }
  }
  const nlohmann::json& overrides = field(tolerance, "overrides");
  if (overrides.is_array() && !overrides.empty()) {
    text += "; overrides:";
    for (const nlohmann::json& o : overrides) {
      text += o.is_array() && o.size() == 2 && o[0].is_string() ? " " + o[0].get<std::string>() + " " + value_text(o[1])
                                                                : " " + o.dump();
    }
  }
  const nlohmann::json& multiplier = field(tolerance, "calibration_multiplier");
  if (multiplier.is_number()) text += "; calibrated thresholds: " + value_text(multiplier) + " x noise floor";
  return text;
}

std::string verdict_counts(const nlohmann::json& points) {
  if (!points.is_array()) return "no points";
  std::map<std::string, int> counts;
  for (const nlohmann::json& p : points) ++counts[string_field(p, "verdict", "?")];
  std::string text = std::to_string(points.size()) + " points:";
  for (const auto& [verdict, count] : counts) text += " " + std::to_string(count) + " " + verdict;
  return text;
}

std::string summary_html(const std::filesystem::path& path) {
  const part_json part = read_json_part(path);
  if (!part.json) return problem_html(path, part.problem);
  const nlohmann::json& report = *part.json;
  if (!report.is_object() || !field(report, "points").is_array()) {
    return problem_html(path, "no \"points\" array: not a report graft localize wrote");
  }
  std::string html;
  if (field(report, "schema_version") != kLocalizeSchemaVersion) {
    html += problem_html(path, "schema_version " + field(report, "schema_version").dump() + ", this page reads " +
                                   std::to_string(kLocalizeSchemaVersion) + "; shown as far as it reads");
  }
  const bool diverges = field(report, "diverges") == true;
  html += "<dl>\n<dt>culprit</dt><dd class=\"" + std::string(diverges ? "fail" : "pass") + "\">" +
          escape_xml(culprit_text(report)) + "</dd>\n<dt>accumulated error first breaks tolerance at</dt><dd>" +
          escape_xml(point_text(field(report, "accumulated_first"))) + "</dd>\n<dt>tolerance</dt><dd>" +
          escape_xml(tolerance_text(report)) + (field(report, "calibrated") == true ? " (calibrated run)" : "") +
          "</dd>\n<dt>verdicts</dt><dd>" + escape_xml(verdict_counts(field(report, "points"))) + "</dd>\n</dl>\n";
  const nlohmann::json& problems = field(report, "problems");
  if (problems.is_array() && !problems.empty()) {
    html += "<p class=\"problem\">The run is not trustworthy:</p>\n<ul>\n";
    for (const nlohmann::json& p : problems) {
      html += "<li class=\"problem\">" + escape_xml(p.is_string() ? p.get<std::string>() : p.dump()) + "</li>\n";
    }
    html += "</ul>\n";
  }
  return html;
}

std::string one_run(const std::filesystem::path& folder, const std::string& name) {
  std::string html = "<h3>" + escape_xml(name) + "</h3>\n";
  const std::filesystem::path json = folder / "report.json", svg = folder / "plot.svg";
  html += is_file(json) ? summary_html(json) : "<p class=\"note\">No report.json.</p>\n";
  if (is_file(svg)) {
    const part_text plot = read_svg_part(svg);
    html += plot.text ? "<div class=\"plot\">\n" + *plot.text + "</div>\n" : problem_html(svg, plot.problem);
  }
  const std::string base = "localize/" + name + "/";
  html += "<p>Files: " + link_html(base + "report.json", "report.json") + " " +
          link_html(base + "table.txt", "table.txt") + " " + link_html(base + "plot.svg", "plot.svg") + "</p>\n";
  return html;
}

}  // namespace

page_section localize_section(const std::filesystem::path& reports) {
  page_section section{"localize", "Localize", "", ""};
  for (const std::filesystem::path& folder : sorted_folders(reports / "localize")) {
    if (!is_file(folder / "report.json") && !is_file(folder / "plot.svg")) continue;
    section.html += one_run(folder, folder.filename().string());
  }
  finish_section(section, "No localize run: there is no localize/NAME/report.json (graft localize writes it).",
                 "Per run: the first point whose local error (its inputs grafted from the baseline) breaks "
                 "tolerance, and rel_diff per point. Hover a point for its value.");
  return section;
}

}  // namespace graft::harness::report
