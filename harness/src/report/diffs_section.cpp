#include <graft/harness/snapshot_store.hpp>
#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness::report {

namespace {

std::string problems_html(const nlohmann::json& scenario) {
  const auto it = scenario.find("problems");
  if (it == scenario.end() || !it->is_array() || it->empty()) return "<p>No problems recorded.</p>\n";
  std::string text;
  for (const nlohmann::json& p : *it) text += (p.is_string() ? p.get<std::string>() : p.dump()) + "\n";
  return pre_html(text, "summary.json");
}

}  // namespace

page_section diffs_section(const std::filesystem::path& reports) {
  page_section section{"diffs", "Failed scenarios", "", ""};
  const part_json summary = read_json_part(reports / "summary.json");
  const nlohmann::json* scenarios = summary.json ? summary_scenarios(*summary.json) : nullptr;
  if (scenarios == nullptr) {
    section.absent = "No snapshot diffs: there is no readable summary.json of a graft run.";
    return section;
  }
  for (const nlohmann::json& s : *scenarios) {
    const std::string result = string_field(s, "result");
    if (result != "fail" && result != "error") continue;
    const std::string name = string_field(s, "name", "?");
    section.html += "<h3>" + escape_xml(name) + " <span class=\"result " + escape_xml(result) + "\">" +
                    escape_xml(result) + "</span></h3>\n";
    // The name becomes a path only when it is one graft gives a run folder.
    const std::filesystem::path diff = reports / "runs" / name / "diff.txt";
    if (is_scenario_name(name) && is_file(diff)) {
      const part_text text = read_part(diff);
      section.html += text.text ? "<p>Snapshot diff (" + link_html("runs/" + name + "/diff.txt", "diff.txt") +
                                      "):</p>\n" + pre_html(*text.text, diff.string())
                                : problem_html(diff, text.problem);
    } else {
      section.html += "<p>No snapshot diff (runs/" + escape_xml(name) +
                      "/diff.txt); the problems summary.json records:</p>\n" + problems_html(s);
    }
  }
  if (section.html.empty()) section.absent = "No snapshot diffs: no scenario failed in the last graft run.";
  return section;
}

}  // namespace graft::harness::report
