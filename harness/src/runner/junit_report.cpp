#include <graft/harness/junit_report.hpp>

#include <fstream>

#include <graft/harness/errors.hpp>
#include <graft/harness/text_format.hpp>
#include <graft/version.hpp>

namespace graft::harness {

namespace {

std::string seconds_text(double seconds) { return format_fixed(seconds, 3); }

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// <failure>, <error> or <skipped>, or "" for a pass; message is the first line.
std::string outcome_element(const scenario_result& r) {
  const char* element = nullptr;
  switch (r.outcome) {
    case scenario_result::status::pass: return "";
    case scenario_result::status::fail: element = "failure"; break;
    case scenario_result::status::error:
    case scenario_result::status::hang: element = "error"; break;
    case scenario_result::status::skip:
    case scenario_result::status::not_applicable: element = "skipped"; break;
  }
  const std::string all = joined_lines(r.problems);
  const std::string first = r.problems.empty() ? r.note : r.problems.front().substr(0, r.problems.front().find('\n'));
  return std::string("      <") + element + " message=\"" + escape_xml(first) + "\">" + escape_xml(all) + "</" +
         element + ">\n";
}

}  // namespace

std::string junit_xml(const std::vector<scenario_result>& results) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  for (const auto& r : results) {
    failures += r.outcome == scenario_result::status::fail;
    errors += r.outcome == scenario_result::status::error || r.outcome == scenario_result::status::hang;
    skipped += r.outcome == scenario_result::status::skip || r.outcome == scenario_result::status::not_applicable;
    seconds += r.seconds;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  out += "  <testsuite name=\"graft\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" +
         std::to_string(skipped) + "\" time=\"" + seconds_text(seconds) + "\">\n";
  out += "    <properties>\n      <property name=\"graft_version\" value=\"" + escape_xml(version()) +
         "\"/>\n    </properties>\n";
  for (const auto& r : results) {
    out += "    <testcase classname=\"graft.scenarios\" name=\"" + escape_xml(r.name) + "\" time=\"" +
           seconds_text(r.seconds) + "\"";
    const std::string child = outcome_element(r);
    const std::string note = r.note.empty() ? "" : "      <system-out>" + escape_xml(r.note) + "</system-out>\n";
    if (child.empty() && note.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n" + child + note + "    </testcase>\n";
  }
  return out + "  </testsuite>\n</testsuites>\n";
}

void write_junit(const std::filesystem::path& path, const std::vector<scenario_result>& results) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << junit_xml(results);
  out.close();
  if (!out) GRAFT_THROW(snapshot_error, path.string() + ": cannot write the JUnit report; check --junit's folder");
}

}  // namespace graft::harness
