#include "report/page_parts.hpp"

#include <algorithm>
#include <system_error>

#include <graft/ascii_lower.hpp>
#include <graft/harness/bounded_json.hpp>
#include <graft/harness/input_file.hpp>
#include <graft/harness/text_format.hpp>

namespace graft::harness::report {

namespace {

// Where text may be cut without splitting a UTF-8 sequence.
std::size_t character_boundary(const std::string& text, std::size_t at) {
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

part_text read_part(const std::filesystem::path& path) {
  try {
    return {read_input_file(path), ""};
  } catch (const unreadable_file& e) {
    return {std::nullopt, e.what()};
  }
}

part_text read_svg_part(const std::filesystem::path& path) {
  part_text part = read_part(path);
  if (!part.text) return part;
  // Inline SVG runs in the page: anything that could script it is refused.
  const std::string lower = ascii_lower(*part.text);
  const char* refused = nullptr;
  if (lower.compare(0, 4, "<svg") != 0) refused = "it does not start with <svg";
  else if (lower.find("<script") != std::string::npos) refused = "it holds a <script>";
  else if (lower.find("<foreignobject") != std::string::npos) refused = "it holds a <foreignObject>";
  else if (lower.find("javascript:") != std::string::npos) refused = "it holds a javascript: link";
  if (refused != nullptr) return {std::nullopt, std::string("is not an SVG graft wrote (") + refused + "), left out"};
  return part;
}

part_json read_json_part(const std::filesystem::path& path) {
  const part_text part = read_part(path);
  if (!part.text) return {std::nullopt, part.problem};
  try {
    return {parse_bounded_json(*part.text), ""};
  } catch (const unreadable_json& e) {
    return {std::nullopt, e.what()};
  }
}

std::vector<std::filesystem::path> sorted_folders(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> folders;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec)) folders.push_back(it->path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

bool is_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string problem_html(const std::filesystem::path& path, const std::string& problem) {
  return "<p class=\"problem\">" + escape_xml(path.string() + ": " + problem) + "</p>\n";
}

std::string pre_html(const std::string& text, const std::string& whole_in) {
  if (text.size() <= kMaxShownBytes) return "<pre>" + escape_xml(text) + "</pre>\n";
  const std::size_t cut = character_boundary(text, kMaxShownBytes);
  return "<pre>" + escape_xml(text.substr(0, cut)) + "</pre>\n<p class=\"note\">" +
         escape_xml("cut after " + std::to_string(cut) + " of " + std::to_string(text.size()) +
                    " bytes; the whole text is in " + whole_in) +
         "</p>\n";
}

std::string link_html(const std::string& relative, const std::string& shown) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string href;
  for (const char c : relative) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') {
      href += c;
    } else {
      href += '%';
      href += kHex[byte >> 4];
      href += kHex[byte & 15];
    }
  }
  return "<a href=\"" + href + "\">" + escape_xml(shown) + "</a>";
}

std::string string_field(const nlohmann::json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

const nlohmann::json* summary_scenarios(const nlohmann::json& summary) {
  if (!summary.is_object()) return nullptr;
  const auto it = summary.find("scenarios");
  return it != summary.end() && it->is_array() ? &*it : nullptr;
}

void finish_section(page_section& section, const std::string& absent, const std::string& intro) {
  if (section.html.empty()) {
    section.absent = absent;
  } else {
    section.html = "<p>" + intro + "</p>\n" + section.html;
  }
}

}  // namespace graft::harness::report
