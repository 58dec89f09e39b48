#pragma once
// JSON that graft reads from files (snapshots, scenarios, event lines) nests a
// few levels deep. Code that walks a document recursively (the snapshot diff,
// redaction, the float encoding, nlohmann's own dump) would overflow the stack
// on a document nested thousands of levels deep, so such a document is refused
// while it is parsed, before any of that runs. So is an object that gives one
// key twice: the parse would keep only the last of them, and a scenario's
// second "expect" would drop its first without a word.

#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace graft::harness {

inline constexpr int kMaxJsonDepth = 64;

// Why a text is not a JSON document graft reads, as a clause for the caller
// to prefix with the file: "invalid JSON at byte 12: ...", "invalid JSON:
// number overflow ...", "it nests deeper than 64 levels ...", or
// "steps[0].expect: the key is given twice in one object ...".
class unreadable_json : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// nlohmann::json::parse(text), bounded to kMaxJsonDepth levels and refusing a
// key given twice in one object; throws unreadable_json for anything it
// cannot return.
nlohmann::json parse_bounded_json(const std::string& text);

// One line of an events file as its JSON object; nullopt when the line is not
// one (unreadable, or another kind of value), for the caller to report with
// the file and line.
std::optional<nlohmann::json> parse_event_line(const std::string& line);

}  // namespace graft::harness
