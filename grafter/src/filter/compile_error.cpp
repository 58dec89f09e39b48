#include "filter/compile_error.hpp"

#include <algorithm>
#include <cstdio>
#include <graft/error.hpp>
#include <string>

namespace graft::detail {

namespace {

bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

bool is_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7F;
}

// Control characters would cut the message short (NUL ends what()) or garble
// a terminal; the problem text shows them escaped.
std::string escape_controls(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (is_control(c)) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(c));
      out += buffer;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void throw_filter_error(const filter_source& source, std::size_t offset, std::string_view problem) {
  const std::string_view text = source.text;
  offset = std::min(offset, text.size());
  // A multi-line expression (from a JSON config, say) shows only the line at fault.
  const std::size_t newline_before = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t line_start =
      newline_before == std::string_view::npos || newline_before >= offset ? 0 : newline_before + 1;
  const std::size_t line_end = std::min(text.find('\n', line_start), text.size());
  const std::string_view line = text.substr(line_start, line_end - line_start);

  // The caret line copies tabs so that the caret lines up under them.
  std::string caret;
  std::size_t column = 1;
  for (std::size_t i = line_start; i < offset; ++i) {
    if (!starts_code_point(text[i])) continue;
    caret += text[i] == '\t' ? '\t' : ' ';
    ++column;
  }

  std::string message(source.field);
  message += ": ";
  message += escape_controls(problem);
  if (line_start != 0 || line_end != text.size()) {
    const auto line_number = std::count(text.begin(), text.begin() + line_start, '\n') + 1;
    message += " at line " + std::to_string(line_number) + ", column ";
  } else {
    message += " at column ";
  }
  message += std::to_string(column);
  message += "\n  ";
  // The echoed line shows them as '?', one for one, to keep the caret aligned.
  for (char c : line) message += c == '\t' || !is_control(c) ? c : '?';
  message += "\n  ";
  message += caret;
  message += '^';
  throw filter_error(message);
}

}  // namespace graft::detail
