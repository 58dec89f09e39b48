#include <graft/harness/bounded_json.hpp>

namespace graft::harness {
namespace {

// Thrown from inside the parser, which unwinds through it.
struct too_deep {};

}  // namespace

nlohmann::json parse_bounded_json(const std::string& text) {
  // nlohmann's parser keeps its own stack on the heap and reports the depth
  // of every element as it goes: stopping there never recurses.
  const nlohmann::json::parser_callback_t within_depth = [](int depth, nlohmann::json::parse_event_t,
                                                             nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw too_deep{};
    return true;
  };
  try {
    return nlohmann::json::parse(text, within_depth);
  } catch (const too_deep&) {
    throw unreadable_json("it nests deeper than " + std::to_string(kMaxJsonDepth) +
                          " levels, which no file graft writes or reads does");
  } catch (const nlohmann::json::parse_error& e) {
    throw unreadable_json("invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    // A number beyond double's range, say (out_of_range 406).
    throw unreadable_json(std::string("invalid JSON: ") + e.what());
  }
}

std::optional<nlohmann::json> parse_event_line(const std::string& line) {
  try {
    nlohmann::json parsed = parse_bounded_json(line);
    if (parsed.is_object()) return parsed;
  } catch (const unreadable_json&) {
  }
  return std::nullopt;
}

}  // namespace graft::harness
