#include <algorithm>
#include <system_error>

#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness::report {

namespace {

// ci/bench.sh writes reports/bench; ci/gpu-bench.sh reports/bench-gpu.
bool is_bench_folder(const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  return name == "bench" || name.rfind("bench-", 0) == 0;
}

std::vector<std::string> json_files(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".json" && is_file(it->path())) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string markdown_part(const std::filesystem::path& path) {
  const part_text report = read_part(path);
  return report.text ? "<div class=\"markdown\">\n" + markdown_html(*report.text) + "</div>\n"
                     : problem_html(path, report.problem);
}

std::string one_bench(const std::filesystem::path& folder, const std::string& name,
                      const std::vector<std::string>& inputs) {
  std::string html = "<h3>" + escape_xml(name + "/") + "</h3>\n";
  const std::filesystem::path svg = folder / "ratio.svg", markdown = folder / "report.md";
  if (is_file(svg)) {
    const part_text chart = read_svg_part(svg);
    html += chart.text ? "<div class=\"plot\">\n" + *chart.text + "</div>\n" : problem_html(svg, chart.problem);
  } else {
    html += "<p class=\"note\">No ratio.svg (graft_bench_report report writes it).</p>\n";
  }
  if (is_file(markdown)) {
    html += markdown_part(markdown);
  } else {
    html += "<p class=\"note\">No report.md (graft_bench_report report writes it).</p>\n";
  }
  // The Python bench's table (python/bench/graft_bench.py): graft, sglang's
  // grafter and their floor from one run.
  if (const std::filesystem::path python = folder / "python_bench.md"; is_file(python)) html += markdown_part(python);
  if (!inputs.empty()) {
    html += "<p>JSON:";
    for (const std::string& input : inputs) html += " " + link_html(name + "/" + input, input);
    html += "</p>\n";
  }
  return html;
}

}  // namespace

page_section bench_section(const std::filesystem::path& reports) {
  page_section section{"bench", "Bench", "", ""};
  for (const std::filesystem::path& folder : sorted_folders(reports)) {
    if (!is_bench_folder(folder)) continue;
    const std::vector<std::string> inputs = json_files(folder);
    if (inputs.empty() && !is_file(folder / "ratio.svg") && !is_file(folder / "report.md")) continue;
    section.html += one_bench(folder, folder.filename().string(), inputs);
  }
  finish_section(section, "No bench: there is no bench/ folder with a report (ci/bench.sh writes one).",
                 "Each case's median time divided by its floor's from the same run, against size; the floor is 1.0. "
                 "Hover a point for its figures.");
  return section;
}

}  // namespace graft::harness::report
