#pragma once
// Strict text parsers for config values: the whole text must be valid
// ("12x" is an error, not 12). Each throws config_error naming `where`.

#include <string>

#include <graft/config.hpp>
#include <graft/role.hpp>

namespace graft::detail {

bool parse_bool(const std::string& text, const std::string& where);
int parse_int(const std::string& text, const std::string& where);
double parse_seconds(const std::string& text, const std::string& where);
role parse_role(const std::string& text, const std::string& where);
measure_mode parse_measure(const std::string& text, const std::string& where);
// The text without surrounding whitespace (a host name, an address).
std::string trimmed(const std::string& text);
// Trimmed and in lower case (a backend: GLOO is gloo).
std::string trimmed_lower(const std::string& text);

}  // namespace graft::detail
