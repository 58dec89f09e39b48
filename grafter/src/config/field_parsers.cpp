#include "config/field_parsers.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include <graft/error.hpp>

#include <graft/ascii_lower.hpp>

namespace graft::detail {

std::string trimmed(const std::string& text) {
  auto begin = text.begin();
  auto end = text.end();
  while (begin != end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  while (end != begin && std::isspace(static_cast<unsigned char>(*(end - 1)))) --end;
  return {begin, end};
}

std::string trimmed_lower(const std::string& text) {
  return ascii_lower(trimmed(text));
}

bool parse_bool(const std::string& text, const std::string& where) {
  const std::string value = trimmed_lower(text);
  if (value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  GRAFT_THROW(config_error, where + ": expected true/false/1/0, got '" + text + "'");
}

int parse_int(const std::string& text, const std::string& where) {
  const std::string value = trimmed_lower(text);
  errno = 0;
  char* end = nullptr;
  const long parsed = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE || parsed < INT_MIN ||
      parsed > INT_MAX) {
    GRAFT_THROW(config_error, where + ": expected an integer, got '" + text + "'");
  }
  return static_cast<int>(parsed);
}

double parse_seconds(const std::string& text, const std::string& where) {
  const std::string value = trimmed_lower(text);
  // Decimal only: strtod would also read hexadecimal ("0x10" is 16).
  const bool decimal = value.find_first_not_of("0123456789.e+-") == std::string::npos;
  char* end = nullptr;
  const double parsed = std::strtod(value.c_str(), &end);
  if (value.empty() || !decimal || end != value.c_str() + value.size() || !std::isfinite(parsed)) {
    GRAFT_THROW(config_error, where + ": expected a number of seconds, got '" + text + "'");
  }
  return parsed;
}

role parse_role(const std::string& text, const std::string& where) {
  const std::string value = trimmed_lower(text);
  if (value == "baseline") return role::baseline;
  if (value == "target") return role::target;
  GRAFT_THROW(config_error, where + ": expected 'baseline' or 'target', got '" + text + "'");
}

measure_mode parse_measure(const std::string& text, const std::string& where) {
  const std::string value = trimmed_lower(text);
  if (value == "full") return measure_mode::full;
  if (value == "off") return measure_mode::off;
  GRAFT_THROW(config_error, where + ": expected 'full' (statistics and metrics on every graft) or 'off' "
                                    "(layout only, no pass over the values), got '" + text + "'");
}

}  // namespace graft::detail
