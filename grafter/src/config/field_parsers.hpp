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

}  // namespace graft::detail
