// String literals: '...', "...", triple-quoted, and raw r'...' strings, with
// Python's escapes. As in Python, an unknown escape such as '\d' keeps its
// backslash, so search('\d+', name) means what the user meant.

#include <cstdint>
#include <string>

#include "filter/literals.hpp"

namespace graft::detail {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Decodes the escape whose backslash is at pos; returns the offset after it.
std::size_t decode_escape(const filter_source& source, std::size_t pos, std::string& out) {
  const std::string_view text = source.text;
  const char c = text[pos + 1];
  switch (c) {
    case '\n': return pos + 2;  // a line continuation
    case '\\': out += '\\'; return pos + 2;
    case '\'': out += '\''; return pos + 2;
    case '"': out += '"'; return pos + 2;
    case 'a': out += '\a'; return pos + 2;
    case 'b': out += '\b'; return pos + 2;
    case 'f': out += '\f'; return pos + 2;
    case 'n': out += '\n'; return pos + 2;
    case 'r': out += '\r'; return pos + 2;
    case 't': out += '\t'; return pos + 2;
    case 'v': out += '\v'; return pos + 2;
    case 'N':
      throw_filter_error(source, pos,
                         "\\N{...} escapes are not supported; write the character itself");
    default: break;
  }
  if (c >= '0' && c <= '7') {
    std::uint32_t code_point = 0;
    std::size_t end = pos + 1;
    while (end < text.size() && end < pos + 4 && text[end] >= '0' && text[end] <= '7') {
      code_point = code_point * 8 + static_cast<std::uint32_t>(text[end] - '0');
      ++end;
    }
    append_utf8(out, code_point);
    return end;
  }
  const int digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
  if (digits == 0) {  // unknown escape: kept as written
    out += '\\';
    return pos + 1;
  }
  std::uint32_t code_point = 0;
  for (int i = 0; i < digits; ++i) {
    const std::size_t at = pos + 2 + static_cast<std::size_t>(i);
    const int digit = at < text.size() ? hex_digit(text[at]) : -1;
    if (digit < 0) {
      throw_filter_error(source, pos,
                         std::string("truncated \\") + c + " escape: it needs " +
                             std::to_string(digits) + " hex digits");
    }
    code_point = code_point * 16 + static_cast<std::uint32_t>(digit);
  }
  if (code_point > 0x10FFFF) {
    throw_filter_error(source, pos, "escape is not a Unicode code point (above \\U0010ffff)");
  }
  append_utf8(out, code_point);
  return pos + 2 + static_cast<std::size_t>(digits);
}

}  // namespace

std::size_t scan_string(const filter_source& source, std::size_t start, std::size_t quote, bool raw,
                        token& out) {
  const std::string_view text = source.text;
  const char q = text[quote];
  const bool triple = text.compare(quote, 3, std::string(3, q)) == 0;
  const std::size_t quote_length = triple ? 3 : 1;
  out.kind = token_kind::string;
  out.text.clear();
  std::size_t pos = quote + quote_length;
  for (;;) {
    if (pos >= text.size() || (!triple && text[pos] == '\n')) {
      throw_filter_error(source, start,
                         triple ? "unterminated triple-quoted string" : "unterminated string");
    }
    const char c = text[pos];
    if (c == q && (!triple || text.compare(pos, 3, std::string(3, q)) == 0)) {
      return pos + quote_length;
    }
    if (c != '\\') {
      out.text += c;
      ++pos;
    } else if (pos + 1 >= text.size()) {
      throw_filter_error(source, start, "unterminated string (it ends in a backslash)");
    } else if (raw) {
      // A raw string keeps the backslash and the character after it; that
      // character (a quote, say) does not end the string.
      out.text += c;
      out.text += text[pos + 1];
      pos += 2;
    } else {
      pos = decode_escape(source, pos, out.text);
    }
  }
}

}  // namespace graft::detail
