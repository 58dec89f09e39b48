#include <map>

#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness::report {

namespace {

constexpr int kSummarySchemaVersion = 1;  // runner.hpp, write_summary

// The note, or else the first line of the first problem, as graft run's
// summary table shows it.
std::string note_of(const nlohmann::json& scenario) {
  const std::string note = string_field(scenario, "note");
  if (!note.empty()) return note;
  const auto it = scenario.find("problems");
  if (it == scenario.end() || !it->is_array() || it->empty() || !it->front().is_string()) return "";
  const std::string first = it->front().get<std::string>();
  return first.substr(0, first.find('\n'));
}

}  // namespace

page_section run_section(const std::filesystem::path& reports) {
  page_section section{"run", "Last graft run", "", ""};
  const std::filesystem::path path = reports / "summary.json";
  if (!is_file(path)) {
    section.absent = "No graft run: there is no summary.json in this folder (graft run writes it).";
    return section;
  }
  const part_json summary = read_json_part(path);
  if (!summary.json) {
    section.html = problem_html(path, summary.problem);
    return section;
  }
  const nlohmann::json& doc = *summary.json;
  const nlohmann::json* scenarios = summary_scenarios(doc);
  if (scenarios == nullptr) {
    section.html = problem_html(path, "no \"scenarios\" array: not a summary graft run wrote");
    return section;
  }
  const nlohmann::json version = doc.contains("schema_version") ? doc["schema_version"] : nlohmann::json();
  if (version != kSummarySchemaVersion) {
    section.html += problem_html(path, "schema_version " + version.dump() + ", this page reads " +
                                           std::to_string(kSummarySchemaVersion) + "; shown as far as it reads");
  }

  std::map<std::string, int> counts;
  double seconds = 0;
  std::string rows;
  for (const nlohmann::json& s : *scenarios) {
    const std::string result = string_field(s, "result", "?");
    ++counts[result];
    const auto time = s.is_object() ? s.find("seconds") : s.end();
    const bool timed = s.is_object() && time != s.end() && time->is_number();
    if (timed) seconds += time->get<double>();
    rows += "<tr><td>" + escape_xml(string_field(s, "name", "?")) + "</td><td class=\"result " +
            escape_xml(result) + "\">" + escape_xml(result) + "</td><td class=\"number\">" +
            (timed ? format_fixed(time->get<double>(), 1) + " s" : "?") + "</td><td>" + escape_xml(note_of(s)) +
            "</td></tr>\n";
  }
  const std::size_t total = scenarios->size();
  section.html += "<p class=\"counts\">" + std::to_string(total) + " scenario" + (total == 1 ? "" : "s") + ": " +
                  std::to_string(counts["pass"]) + " passed, " + std::to_string(counts["fail"]) + " failed, " +
                  std::to_string(counts["error"]) + " errors, " + std::to_string(counts["skip"]) + " skipped; " +
                  format_fixed(seconds, 1) + " s in all (" + link_html("summary.json", "summary.json") + ")</p>\n";
  if (total > 0) {
    section.html += "<table>\n<thead><tr><th>scenario</th><th>result</th><th>time</th><th>note</th></tr></thead>\n"
                    "<tbody>\n" + rows + "</tbody></table>\n";
  }
  return section;
}

}  // namespace graft::harness::report
