#include <graft/harness/report_page.hpp>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <new>
#include <system_error>
#include <vector>

#include <graft/error.hpp>
#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness {

namespace {

// No web fonts, no images: the page is one file that opens anywhere. No '<'
// or '&' either, so that the page also parses as XHTML.
constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #ccc; margin-top: 1.8em; }
nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.number { text-align: right; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.plot { overflow-x: auto; margin: 0.6em 0; }
.result.pass, dd.pass { color: #1a7f37; }
.result.fail, .result.error, dd.fail { color: #c62828; font-weight: bold; }
.result.skip { color: #9a6700; }
.problem { color: #c62828; }
.note, .absent li { color: #666; }
dt { font-weight: bold; }
dd { margin: 0 0 0.4em 1.5em; }
)";

std::string section_html(const report::page_section& s) {
  return "<section id=\"" + s.id + "\">\n<h2>" + escape_xml(s.title) + "</h2>\n" + s.html + "</section>\n";
}

// One part that fails for a reason no reader foresaw (a JSON value of an
// unexpected type deep down) costs its own section, not the page.
report::page_section guarded(report::page_section (*make)(const std::filesystem::path&), const char* id,
                             const char* title, const std::filesystem::path& reports) {
  try {
    return make(reports);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return {id, title, "<p class=\"problem\">" + escape_xml(std::string("cannot show this part: ") + e.what()) +
                           "</p>\n", ""};
  }
}

}  // namespace

std::string render_report_page(const std::filesystem::path& reports_dir) {
  const std::vector<report::page_section> sections{
      guarded(report::run_section, "run", "Last graft run", reports_dir),
      guarded(report::diffs_section, "diffs", "Failed scenarios", reports_dir),
      guarded(report::conformance_section, "conformance", "Conformance", reports_dir),
      guarded(report::bench_section, "bench", "Bench", reports_dir),
      guarded(report::localize_section, "localize", "Localize", reports_dir)};
  std::string nav, body, absent;
  for (const auto& s : sections) {
    if (s.html.empty()) {
      absent += "<li>" + escape_xml(s.absent) + "</li>\n";
    } else {
      nav += "<a href=\"#" + s.id + "\">" + escape_xml(s.title) + "</a>\n";
      body += section_html(s);
    }
  }
  std::error_code ec;
  const std::filesystem::path shown = std::filesystem::absolute(reports_dir, ec);
  return std::string("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                     "<meta charset=\"utf-8\"/>\n<title>graft reports</title>\n<style>") +
         kStyle + "</style>\n</head>\n<body>\n<h1>graft reports</h1>\n<p class=\"note\">" +
         escape_xml((ec ? reports_dir : shown).string()) + "</p>\n" +
         (nav.empty() ? "" : "<nav>\n" + nav + "</nav>\n") +
         (absent.empty() ? "" : "<ul class=\"absent\" id=\"absent\">\n" + absent + "</ul>\n") + body +
         "</body>\n</html>\n";
}

std::filesystem::path write_report_page(const std::filesystem::path& reports_dir) {
  const std::filesystem::path page = reports_dir / "index.html";
  const std::string text = render_report_page(reports_dir);
  // Unique per process and call: localize runs sharing a reports folder may
  // write their pages at once, and the last rename wins whole.
  static std::atomic<unsigned> calls{0};
  const std::filesystem::path temporary =
      reports_dir / (".index.html." + std::to_string(::getpid()) + "." + std::to_string(calls++) + ".tmp");
  std::error_code ec;
  std::filesystem::create_directories(reports_dir, ec);
  std::string why = ec ? "cannot create the folder: " + ec.message() : "";
  if (why.empty()) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) why = "cannot write " + temporary.string();
  }
  if (why.empty()) {
    std::filesystem::rename(temporary, page, ec);
    if (ec) why = "cannot rename " + temporary.string() + " over it: " + ec.message();
  }
  if (!why.empty()) {
    std::filesystem::remove(temporary, ec);
    GRAFT_THROW(error, page.string() + ": cannot write the report page (" + why + "); is the reports folder writable?");
  }
  return page;
}

}  // namespace graft::harness
