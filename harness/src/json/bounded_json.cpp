#include <graft/harness/bounded_json.hpp>

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <graft/harness/json_checker.hpp>

namespace graft::harness {
namespace {

using detail::json_checker;
using event_t = nlohmann::json::parse_event_t;

// The length of the well-formed UTF-8 sequence that starts text[at], or 0.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  char32_t code = 0, least = 0;
  if ((lead & 0xE0) == 0xC0) length = 2, code = lead & 0x1F, least = 0x80;
  else if ((lead & 0xF0) == 0xE0) length = 3, code = lead & 0x0F, least = 0x800;
  else if ((lead & 0xF8) == 0xF0) length = 4, code = lead & 0x07, least = 0x10000;
  else return 0;
  if (at + length > text.size()) return 0;
  for (std::size_t i = at + 1; i < at + length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3F);
  }
  const bool well_formed = code >= least && code <= 0x10FFFF && (code < 0xD800 || code > 0xDFFF);
  return well_formed ? length : 0;
}

// nlohmann's parse errors quote the bytes last read, which need not be UTF-8
// (the very error may be an ill-formed byte); the message goes on into JSON
// (graft list --json, graft diff --json), whose writer throws on such bytes,
// and into the report page. Each byte of an ill-formed sequence shows as \xNN.
std::string utf8_message(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    if (const std::size_t length = utf8_length(text, at)) {
      out.append(text, at, length);
      at += length;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(text[at]));
      out += escaped;
      ++at;
    }
  }
  return out;
}

// Thrown from inside the parser, which unwinds through it.
struct too_deep {};
struct key_given_twice {
  std::string path;
};

// The objects and arrays the parser has opened and not yet closed. nlohmann
// keeps the last of two equal keys and drops the first without a word, so a
// hand-written scenario with "expect" twice in one step would lose one
// expectation and still pass: each open object remembers its keys, and a
// second one stops the parse with the path of the key.
class open_containers {
 public:
  void on(event_t event, const nlohmann::json& parsed) {
    switch (event) {
      case event_t::object_start:
        open(true);
        break;
      case event_t::array_start:
        open(false);
        break;
      case event_t::key:
        add_key(parsed.get<std::string>());
        break;
      case event_t::object_end:
      case event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case event_t::value:
        element_done();
        break;
    }
  }

 private:
  struct frame {
    bool is_object;
    std::string path;
    std::unordered_set<std::string> keys;
    std::string last_key;
    std::size_t next_index = 0;
  };

  // The path of the element being read inside the innermost open container.
  std::string element_path() const {
    if (frames_.empty()) return "";
    const frame& top = frames_.back();
    return top.is_object ? json_checker::key_path(top.path, top.last_key)
                         : json_checker::index_path(top.path, top.next_index);
  }

  void open(bool is_object) { frames_.push_back({is_object, element_path(), {}, {}, 0}); }

  void add_key(std::string key) {
    frame& top = frames_.back();
    top.last_key = key;
    if (!top.keys.insert(std::move(key)).second) throw key_given_twice{element_path()};
  }

  void element_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().next_index;
  }

  std::vector<frame> frames_;
};

}  // namespace

nlohmann::json parse_bounded_json(const std::string& text) {
  // nlohmann's parser keeps its own stack on the heap and reports the depth
  // of every element as it goes: stopping there never recurses.
  open_containers containers;
  const nlohmann::json::parser_callback_t checked = [&containers](int depth, event_t event,
                                                                  nlohmann::json& parsed) {
    if (depth > kMaxJsonDepth) throw too_deep{};
    containers.on(event, parsed);
    return true;
  };
  try {
    return nlohmann::json::parse(text, checked);
  } catch (const too_deep&) {
    throw unreadable_json("it nests deeper than " + std::to_string(kMaxJsonDepth) +
                          " levels, which no file graft writes or reads does");
  } catch (const key_given_twice& twice) {
    throw unreadable_json(twice.path + ": the key is given twice in one object, and JSON would keep only the " +
                          "last; remove or rename one of them");
  } catch (const nlohmann::json::parse_error& e) {
    throw unreadable_json("invalid JSON at byte " + std::to_string(e.byte) + ": " + utf8_message(e.what()));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond double's range, say (out_of_range 406).
    throw unreadable_json("invalid JSON: " + utf8_message(e.what()));
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
