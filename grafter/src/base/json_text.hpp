#pragma once
// JSON as text for event lines, messages and the wire. Tag and extras strings
// come from the host program and may hold bytes that are not UTF-8, on which
// nlohmann's strict dump throws (type_error 316) from inside maybe_intercept;
// such bytes become U+FFFD here instead.

#include <string>

#include <nlohmann/json.hpp>

namespace graft::detail {

inline std::string json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace graft::detail
