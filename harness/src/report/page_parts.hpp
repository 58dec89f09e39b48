#pragma once
// What the sections of the report page (report_page.hpp) are made of, and
// the reading they share. Private to graft_report. Nothing here throws for a
// missing or broken file: it becomes a problem to show on the page.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft::harness::report {

// One section of the page, or the line that says why it is not there.
struct page_section {
  std::string id;      // its anchor: run, diffs, bench, localize
  std::string title;   // its heading
  std::string html;    // its body; empty when the data is absent
  std::string absent;  // when html is empty: what is missing and what writes it
};

// A section made of parts, one per folder: with none, absent says what is
// missing; with some, the intro paragraph goes before them.
void finish_section(page_section& section, const std::string& absent, const std::string& intro);

page_section run_section(const std::filesystem::path& reports);
page_section diffs_section(const std::filesystem::path& reports);
page_section bench_section(const std::filesystem::path& reports);
page_section conformance_section(const std::filesystem::path& reports);
page_section localize_section(const std::filesystem::path& reports);

// A part's text, or why there is none: "cannot read the file (No such file
// or directory)", "is not an SVG graft wrote (...)".
struct part_text {
  std::optional<std::string> text;
  std::string problem;
};
part_text read_part(const std::filesystem::path& path);
// An SVG to inline: graft's own plots start with <svg and hold no script.
part_text read_svg_part(const std::filesystem::path& path);

struct part_json {
  std::optional<nlohmann::json> json;
  std::string problem;
};
part_json read_json_part(const std::filesystem::path& path);

// The page's sub-folders that are folders, sorted by name; none when the
// folder cannot be listed.
std::vector<std::filesystem::path> sorted_folders(const std::filesystem::path& folder);
bool is_file(const std::filesystem::path& path);

// <p class="problem">path: problem</p>, escaped.
std::string problem_html(const std::filesystem::path& path, const std::string& problem);
// text, escaped, in a <pre>; past kMaxShownBytes cut (at a character
// boundary) with a line that names the file holding the rest.
inline constexpr std::size_t kMaxShownBytes = 256 * 1024;
std::string pre_html(const std::string& text, const std::string& whole_in);
// <a href="relative">shown</a>, the path percent-encoded, the text escaped.
std::string link_html(const std::string& relative, const std::string& shown);
// The string at key, or fallback when the field is absent or not a string.
std::string string_field(const nlohmann::json& object, const char* key, const std::string& fallback = "");

// summary.json's "scenarios" array (runner.hpp, write_summary); null when
// the document has none.
const nlohmann::json* summary_scenarios(const nlohmann::json& summary);

// A simple markdown subset as HTML: # headings (demoted under the page's own),
// pipe tables, "- " lists, paragraphs, `code` and **bold**. Everything escaped.
std::string markdown_html(const std::string& markdown);

}  // namespace graft::harness::report
