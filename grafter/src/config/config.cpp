#include <graft/config.hpp>

#include <cctype>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

#include <graft/error.hpp>
#include <graft/filter.hpp>

#include "base/json_text.hpp"
#include "config/field_parsers.hpp"

extern char** environ;

namespace graft {

namespace {

using detail::parse_bool;
using detail::parse_int;
using detail::parse_seconds;
using detail::parse_measure;
using detail::parse_role;

// One field of the config: how to set it from text and from JSON.
struct field {
  const char* key;
  std::function<void(graft_config&, const std::string& text, const std::string& where)> from_text;
  std::function<void(graft_config&, const nlohmann::json& value, const std::string& where)> from_json;
};

std::string expect_json_string(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) GRAFT_THROW(config_error, where + ": expected a string, got " + detail::json_text(v));
  return v.get<std::string>();
}

int expect_json_int(const nlohmann::json& v, const std::string& where) {
  // get<int>() would wrap a larger number silently (4294996796 -> 29500).
  const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::numeric_limits<int>::max()
                                           : v.is_number_integer() &&
                                                 v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                                 v.get<std::int64_t>() <= std::numeric_limits<int>::max();
  if (!fits) GRAFT_THROW(config_error, where + ": expected an integer, got " + detail::json_text(v));
  return v.get<int>();
}

// Where a field's value lives: a member of graft_config or of its c10d part.
template <typename value_type>
using place = std::function<value_type&(graft_config&)>;

template <typename value_type>
place<value_type> in_config(value_type graft_config::*member) {
  return [member](graft_config& c) -> value_type& { return c.*member; };
}

template <typename value_type>
place<value_type> in_c10d(value_type c10d_options::*member) {
  return [member](graft_config& c) -> value_type& { return c.c10d.*member; };
}

// A string field read through normalise, from text and from JSON alike.
field text_field(const char* key, place<std::string> at, std::string (*normalise)(const std::string&)) {
  return {key,
          [at, normalise](graft_config& c, const std::string& text, const std::string&) { at(c) = normalise(text); },
          [at, normalise](graft_config& c, const nlohmann::json& v, const std::string& where) {
            at(c) = normalise(expect_json_string(v, where));
          }};
}

field optional_string_field(const char* key, place<std::optional<std::string>> at) {
  return {key, [at](graft_config& c, const std::string& text, const std::string&) { at(c) = text; },
          [at](graft_config& c, const nlohmann::json& v, const std::string& where) {
            if (v.is_null()) at(c) = std::nullopt;
            else at(c) = expect_json_string(v, where);
          }};
}

field int_field(const char* key, place<int> at) {
  return {key,
          [at](graft_config& c, const std::string& text, const std::string& where) { at(c) = parse_int(text, where); },
          [at](graft_config& c, const nlohmann::json& v, const std::string& where) {
            at(c) = expect_json_int(v, where);
          }};
}

const std::vector<field>& fields() {
  static const std::vector<field> all = {
      {"enable", [](graft_config& c, const std::string& text, const std::string& where) { c.enable = parse_bool(text, where); },
       [](graft_config& c, const nlohmann::json& v, const std::string& where) {
         if (!v.is_boolean()) GRAFT_THROW(config_error, where + ": expected true or false, got " + detail::json_text(v));
         c.enable = v.get<bool>();
       }},
      {"role", [](graft_config& c, const std::string& text, const std::string& where) { c.side = parse_role(text, where); },
       [](graft_config& c, const nlohmann::json& v, const std::string& where) {
         c.side = parse_role(expect_json_string(v, where), where);
       }},
      optional_string_field("b2t_filter", in_config(&graft_config::b2t_filter)),
      optional_string_field("t2b_filter", in_config(&graft_config::t2b_filter)),
      optional_string_field("compare_filter", in_config(&graft_config::compare_filter)),
      text_field("master_address", in_c10d(&c10d_options::master_address), detail::trimmed),
      int_field("master_port", in_c10d(&c10d_options::master_port)),
      int_field("baseline_world_size", in_config(&graft_config::baseline_world_size)),
      int_field("target_world_size", in_config(&graft_config::target_world_size)),
      text_field("backend", in_c10d(&c10d_options::backend), detail::trimmed_lower),
      text_field("group_name", in_c10d(&c10d_options::group_name), detail::trimmed),
      optional_string_field("world_token", in_c10d(&c10d_options::world_token)),
      {"timeout", [](graft_config& c, const std::string& text, const std::string& where) {
         c.timeout_seconds = parse_seconds(text, where);
       },
       [](graft_config& c, const nlohmann::json& v, const std::string& where) {
         if (!v.is_number()) GRAFT_THROW(config_error, where + ": expected a number of seconds, got " + detail::json_text(v));
         c.timeout_seconds = v.get<double>();
       }},
      optional_string_field("transform_path", in_config(&graft_config::transform_path)),
      {"measure", [](graft_config& c, const std::string& text, const std::string& where) {
         c.measure = parse_measure(text, where);
       },
       [](graft_config& c, const nlohmann::json& v, const std::string& where) {
         c.measure = parse_measure(expect_json_string(v, where), where);
       }},
      optional_string_field("events_path", in_config(&graft_config::events_path)),
  };
  return all;
}

std::string valid_keys_list() {
  std::string out;
  for (const auto& key : graft_config::key_names()) out += (out.empty() ? "" : ", ") + key;
  return out;
}

// "grafter_b2t_filter" and "b2t_filter" name the same field (the reference's
// DumperConfig field names carry the prefix).
const field& find_field(std::string_view key, const std::string& where) {
  std::string_view bare = key;
  if (bare.substr(0, 8) == "grafter_") bare.remove_prefix(8);
  for (const auto& f : fields()) {
    if (bare == f.key) return f;
  }
  GRAFT_THROW(config_error, where + ": unknown config key '" + std::string(key) +
                                "'. Valid keys: " + valid_keys_list());
}

// The fields a config source has set so far, so that one field given twice
// ("timeout" and "grafter_timeout", or a repeated pair) is an error instead
// of whichever came last.
class set_once {
 public:
  explicit set_once(std::string source) : source_(std::move(source)) {}
  void note(const field& f, const std::string& key) {
    const auto [it, fresh] = given_.emplace(f.key, key);
    if (!fresh) {
      GRAFT_THROW(config_error, source_ + ": '" + key + "' sets " + std::string(f.key) + ", which '" + it->second +
                                    "' already set; give it once");
    }
  }

 private:
  std::string source_;
  std::map<std::string_view, std::string> given_;
};

bool is_blank(const std::string& s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string to_string(measure_mode mode) { return mode == measure_mode::full ? "full" : "off"; }

const std::vector<std::string>& graft_config::key_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : fields()) out.emplace_back(f.key);
    return out;
  }();
  return names;
}

std::string graft_config::env_name(std::string_view key) {
  std::string out = "DUMPER_GRAFTER_";
  for (char c : key) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

graft_config graft_config::from_env_map(const std::map<std::string, std::string>& env) {
  // A DUMPER_GRAFTER_ variable the grafter does not read is a typo that
  // would otherwise leave a setting silently at its default.
  for (const auto& [name, value] : env) {
    if (name.rfind("DUMPER_GRAFTER_", 0) != 0) continue;
    bool known = false;
    for (const auto& f : fields()) known = known || name == env_name(f.key);
    if (!known) {
      std::string valid;
      for (const auto& f : fields()) valid += (valid.empty() ? "" : ", ") + env_name(f.key);
      GRAFT_THROW(config_error, "unknown variable " + name + "; the grafter reads " + valid +
                                    ". Fix its name or unset it");
    }
  }
  graft_config config;
  for (const auto& f : fields()) {
    const std::string name = env_name(f.key);
    const auto it = env.find(name);
    if (it == env.end() || is_blank(it->second)) continue;  // unset or blank: the default
    f.from_text(config, it->second, name);
  }
  return config;
}

graft_config graft_config::from_env() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.substr(0, 15) != "DUMPER_GRAFTER_") continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return from_env_map(env);
}

graft_config graft_config::from_kv_pairs(const std::vector<std::string>& pairs) {
  graft_config config;
  set_once given("config pairs");
  for (const auto& pair : pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos) {
      GRAFT_THROW(config_error, "invalid config pair (missing '='): '" + pair +
                                    "'. Write key=value, e.g. role=baseline");
    }
    const std::string key = pair.substr(0, eq);
    const field& f = find_field(key, "config pair '" + pair + "'");
    given.note(f, key);
    f.from_text(config, pair.substr(eq + 1), key);
  }
  return config;
}

graft_config graft_config::from_json(const nlohmann::json& object) {
  if (!object.is_object()) GRAFT_THROW(config_error, "grafter config: expected a JSON object, got " + detail::json_text(object));
  graft_config config;
  set_once given("grafter config");
  for (const auto& [key, value] : object.items()) {
    const field& f = find_field(key, "grafter config");
    given.note(f, key);
    f.from_json(config, value, key);
  }
  return config;
}

}  // namespace graft
