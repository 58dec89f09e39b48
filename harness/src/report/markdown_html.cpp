#include <algorithm>
#include <sstream>
#include <vector>

#include <graft/harness/text_format.hpp>

#include "report/page_parts.hpp"

namespace graft::harness::report {

namespace {

// `code` and **bold** within one line, everything else escaped. An unpaired
// marker stays as it is.
std::string inline_html(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '`') {
      const std::size_t end = text.find('`', i + 1);
      if (end != std::string::npos) {
        out += "<code>" + escape_xml(text.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    }
    if (text.compare(i, 2, "**") == 0) {
      const std::size_t end = text.find("**", i + 2);
      if (end != std::string::npos && text.find('`', i + 2) > end) {
        out += "<strong>" + escape_xml(text.substr(i + 2, end - i - 2)) + "</strong>";
        i = end + 2;
        continue;
      }
    }
    out += escape_xml(std::string(1, text[i]));
    ++i;
  }
  return out;
}

std::string trimmed(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// "| a | b |" -> {"a", "b"}
std::vector<std::string> cells(const std::string& line) {
  std::string body = trimmed(line);
  if (!body.empty() && body.front() == '|') body.erase(0, 1);
  if (!body.empty() && body.back() == '|') body.pop_back();
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string cell; std::getline(in, cell, '|');) out.push_back(trimmed(cell));
  return out;
}

bool is_separator_row(const std::string& line) {
  for (const std::string& cell : cells(line)) {
    if (cell.find_first_not_of("-: ") != std::string::npos || cell.find('-') == std::string::npos) return false;
  }
  return true;
}

std::string table_html(const std::vector<std::string>& lines) {
  std::string out = "<table>\n";
  std::size_t body_from = 0;
  if (lines.size() >= 2 && is_separator_row(lines[1])) {
    out += "<thead><tr>";
    for (const std::string& cell : cells(lines[0])) out += "<th>" + inline_html(cell) + "</th>";
    out += "</tr></thead>\n";
    body_from = 2;
  }
  out += "<tbody>\n";
  for (std::size_t i = body_from; i < lines.size(); ++i) {
    out += "<tr>";
    for (const std::string& cell : cells(lines[i])) out += "<td>" + inline_html(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string markdown_html(const std::string& markdown) {
  enum class block { none, table, list, paragraph };
  std::string out;
  block current = block::none;
  std::vector<std::string> lines;  // of the current block
  const auto flush = [&] {
    switch (current) {
      case block::table: out += table_html(lines); break;
      case block::list:
        out += "<ul>\n";
        for (const std::string& item : lines) out += "<li>" + inline_html(item.substr(2)) + "</li>\n";
        out += "</ul>\n";
        break;
      case block::paragraph: {
        std::string joined;
        for (const std::string& line : lines) joined += (joined.empty() ? "" : " ") + line;
        out += "<p>" + inline_html(joined) + "</p>\n";
        break;
      }
      case block::none: break;
    }
    lines.clear();
  };
  std::istringstream in(markdown);
  for (std::string raw; std::getline(in, raw);) {
    const std::string line = trimmed(raw);
    block kind = block::paragraph;
    if (line.empty() || line.front() == '#') kind = block::none;
    else if (line.front() == '|') kind = block::table;
    else if (line.rfind("- ", 0) == 0) kind = block::list;
    if (kind != current) flush();
    current = kind;
    if (kind != block::none) {
      lines.push_back(line);
    } else if (!line.empty()) {
      // The page's own headings are h1 and h2: the file's start at h3.
      const std::size_t hashes = std::min(line.find_first_not_of('#'), line.size());
      const std::string h = std::to_string(std::min<std::size_t>(hashes + 2, 6));
      out += "<h" + h + ">" + inline_html(trimmed(line.substr(hashes))) + "</h" + h + ">\n";
    }
  }
  flush();
  return out;
}

}  // namespace graft::harness::report
