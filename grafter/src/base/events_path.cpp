#include <graft/events_path.hpp>

#include <array>
#include <utility>

namespace graft {
namespace {

constexpr std::array<std::string_view, 4> kPlaceholders = {"role", "rank", "graft_rank", "pid"};

// Calls on_text for each literal run and on_placeholder for each {name};
// returns the problem, or nullopt when the pattern parsed.
template <typename Text, typename Placeholder>
std::optional<std::string> walk(std::string_view pattern, Text on_text, Placeholder on_placeholder) {
  std::size_t at = 0;
  while (at < pattern.size()) {
    const std::size_t open = pattern.find_first_of("{}", at);
    on_text(pattern.substr(at, open == std::string_view::npos ? std::string_view::npos : open - at));
    if (open == std::string_view::npos) break;
    if (pattern[open] == '}') return "a '}' at column " + std::to_string(open + 1) + " closes no '{'";
    const std::size_t close = pattern.find('}', open);
    if (close == std::string_view::npos) return "the '{' at column " + std::to_string(open + 1) + " is never closed";
    const std::string_view name = pattern.substr(open + 1, close - open - 1);
    bool known = false;
    for (const std::string_view placeholder : kPlaceholders) known = known || placeholder == name;
    if (!known) {
      return "unknown placeholder {" + std::string(name) + "}; the placeholders are {role}, {rank}, {graft_rank} "
             "and {pid}";
    }
    on_placeholder(name);
    at = close + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> events_path_problem(std::string_view pattern) {
  if (pattern.empty()) return std::string("the path is empty");
  return walk(pattern, [](std::string_view) {}, [](std::string_view) {});
}

std::string expand_events_path(std::string_view pattern, std::string_view role, int rank, int graft_rank, long pid) {
  std::string out;
  walk(
      pattern, [&](std::string_view text) { out += text; },
      [&](std::string_view name) {
        if (name == "role") out += role;
        if (name == "rank") out += std::to_string(rank);
        if (name == "graft_rank") out += std::to_string(graft_rank);
        if (name == "pid") out += std::to_string(pid);
      });
  return out;
}

}  // namespace graft
