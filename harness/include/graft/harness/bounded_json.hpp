#pragma once
// JSON that graft reads from files (snapshots, scenarios, event lines) nests a
// few levels deep. Code that walks a document recursively (the snapshot diff,
// redaction, the float encoding, nlohmann's own dump) would overflow the stack
// on a document nested thousands of levels deep, so such a document is refused
// while it is parsed, before any of that runs.

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace graft::harness {

inline constexpr int kMaxJsonDepth = 64;

// Thrown by parse_bounded_json for a document nested deeper than kMaxJsonDepth.
class json_too_deep : public std::runtime_error {
 public:
  json_too_deep();
};

// nlohmann::json::parse(text), which throws nlohmann::json::parse_error for
// text that is not JSON, and json_too_deep for a document nested too deep.
nlohmann::json parse_bounded_json(const std::string& text);

}  // namespace graft::harness
