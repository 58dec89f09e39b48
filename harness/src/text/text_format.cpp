#include <graft/harness/text_format.hpp>

#include <cmath>
#include <cstdio>

namespace graft::harness {

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t':
      case '\n':
      case '\r': out += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\xEF\xBF\xBD";  // U+FFFD in UTF-8
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string format_fixed(double v, int decimals) {
  // %f of a large value runs to hundreds of digits: sized, not truncated.
  const int length = std::snprintf(nullptr, 0, "%.*f", decimals, v);
  std::string out(static_cast<std::size_t>(length) + 1, '\0');
  std::snprintf(out.data(), out.size(), "%.*f", decimals, v);
  out.pop_back();
  return out;
}

std::string format_significant(double v, int digits) {
  // glibc prints a negative NaN as "-nan": one spelling, whatever the sign bit.
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

}  // namespace graft::harness
