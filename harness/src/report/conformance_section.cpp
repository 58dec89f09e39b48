#include "report/page_parts.hpp"

namespace graft::harness::report {

page_section conformance_section(const std::filesystem::path& reports) {
  page_section section{"conformance", "Conformance", "", ""};
  const std::filesystem::path markdown = reports / "conformance.md";
  if (is_file(markdown)) {
    const part_text table = read_part(markdown);
    section.html += table.text ? "<div class=\"markdown\">\n" + markdown_html(*table.text) + "</div>\n"
                               : problem_html(markdown, table.problem);
    if (is_file(reports / "conformance.json")) {
      section.html += "<p>JSON: " + link_html("conformance.json", "conformance.json") + "</p>\n";
    }
  }
  finish_section(section, "No conformance table: graft conformance writes one.",
                 "Every CPU scenario played by graft's C++ grafter, graft's Python package and sglang's own grafter.");
  return section;
}

}  // namespace graft::harness::report
