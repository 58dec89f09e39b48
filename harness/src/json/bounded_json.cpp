#include <graft/harness/bounded_json.hpp>

namespace graft::harness {

json_too_deep::json_too_deep()
    : std::runtime_error("it nests deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels, which no file graft writes or reads does") {}

nlohmann::json parse_bounded_json(const std::string& text) {
  // nlohmann's parser keeps its own stack on the heap and reports the depth
  // of every element as it goes: stopping there never recurses.
  const nlohmann::json::parser_callback_t within_depth = [](int depth, nlohmann::json::parse_event_t,
                                                             nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw json_too_deep();
    return true;
  };
  return nlohmann::json::parse(text, within_depth);
}

}  // namespace graft::harness
