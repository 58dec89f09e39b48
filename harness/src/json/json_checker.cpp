#include <graft/harness/json_checker.hpp>

#include <graft/harness/errors.hpp>

namespace graft::harness::detail {

namespace {

constexpr std::size_t kDescribeWidth = 60;

const char* kind_of(const nlohmann::json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number_float()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array";
  return "an object";
}

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "" : ", ") + ("\"" + c + "\"");
  return out;
}

}  // namespace

void json_checker::add(const std::string& path, const std::string& what) {
  problems_.push_back((path.empty() ? std::string("(document)") : path) + ": " + what);
}

void json_checker::throw_if_problems(const std::string& source, const std::string& format_doc) const {
  if (problems_.empty()) return;
  std::string message = source + ": " + std::to_string(problems_.size()) + " problem" +
                        (problems_.size() == 1 ? "" : "s") + " (format: " + format_doc + "):";
  for (const auto& p : problems_) message += "\n  " + p;
  GRAFT_THROW(fixture_error, message);
}

std::string json_checker::key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string json_checker::index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string json_checker::describe(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > kDescribeWidth) {
    // Cut between characters: a message goes on into JSON (graft list --json),
    // whose writer throws on a split UTF-8 sequence.
    std::size_t cut = kDescribeWidth - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return text;
}

bool json_checker::is_object(const nlohmann::json& value, const std::string& path) {
  if (value.is_object()) return true;
  add(path, "expected an object, got " + describe(value));
  return false;
}

void json_checker::known_keys(const nlohmann::json& object, const std::string& path,
                              std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    add(key_path(path, key), "unknown key; expected one of: " + list);
  }
}

std::optional<std::string> json_checker::string(const nlohmann::json& object, const std::string& key,
                                                 const std::string& path, bool required) {
  const auto it = object.find(key);
  const std::string at = key_path(path, key);
  if (it == object.end()) {
    if (required) add(at, "required string is missing");
    return std::nullopt;
  }
  if (!it->is_string()) {
    add(at, std::string("expected a string, got ") + kind_of(*it) + " " + describe(*it));
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::optional<std::int64_t> json_checker::integer(const nlohmann::json& object, const std::string& key,
                                                  const std::string& path, bool required) {
  const auto it = object.find(key);
  const std::string at = key_path(path, key);
  if (it == object.end()) {
    if (required) add(at, "required integer is missing");
    return std::nullopt;
  }
  if (!it->is_number_integer()) {
    add(at, std::string("expected an integer, got ") + kind_of(*it) + " " + describe(*it));
    return std::nullopt;
  }
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t{INT64_MAX}) {
    add(at, "integer " + describe(*it) + " is out of range");
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

std::optional<std::int64_t> json_checker::integer_in(const nlohmann::json& object, const std::string& key,
                                                     const std::string& path, bool required, std::int64_t min,
                                                     std::int64_t max) {
  const auto value = integer(object, key, path, required);
  if (value && (*value < min || *value > max)) {
    add(key_path(path, key), "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                 "], got " + std::to_string(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<double> json_checker::number(const nlohmann::json& object, const std::string& key,
                                           const std::string& path, bool required) {
  const auto it = object.find(key);
  const std::string at = key_path(path, key);
  if (it == object.end()) {
    if (required) add(at, "required number is missing");
    return std::nullopt;
  }
  if (!it->is_number()) {
    add(at, std::string("expected a number, got ") + kind_of(*it) + " " + describe(*it));
    return std::nullopt;
  }
  return it->get<double>();
}

std::optional<double> json_checker::seconds(const nlohmann::json& object, const std::string& key,
                                            const std::string& path, bool required, double max) {
  const auto value = number(object, key, path, required);
  if (value && (*value <= 0 || *value > max)) {
    add(key_path(path, key), "expected a number of seconds in (0, " + std::to_string(static_cast<std::int64_t>(max)) +
                                 "], got " + describe(object.at(key)));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> json_checker::boolean(const nlohmann::json& object, const std::string& key,
                                          const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (!it->is_boolean()) {
    add(key_path(path, key), std::string("expected true or false, got ") + kind_of(*it) + " " + describe(*it));
    return std::nullopt;
  }
  return it->get<bool>();
}

std::optional<std::vector<std::int64_t>> json_checker::int_array(const nlohmann::json& object, const std::string& key,
                                                                 const std::string& path, bool required) {
  const auto it = object.find(key);
  const std::string at = key_path(path, key);
  if (it == object.end()) {
    if (required) add(at, "required array of ints is missing");
    return std::nullopt;
  }
  bool ok = it->is_array();
  if (ok) {
    for (const auto& item : *it) ok = ok && item.is_number_integer() && item.get<std::int64_t>() >= 0;
  }
  if (!ok) {
    add(at, "expected an array of ints >= 0, got " + describe(*it));
    return std::nullopt;
  }
  return it->get<std::vector<std::int64_t>>();
}

std::optional<std::string> json_checker::choice(const nlohmann::json& object, const std::string& key,
                                                const std::string& path, const std::vector<std::string>& choices,
                                                bool required) {
  auto value = string(object, key, path, required);
  if (!value) return std::nullopt;
  for (const auto& c : choices) {
    if (*value == c) return value;
  }
  add(key_path(path, key), "\"" + *value + "\" is not one of " + join_choices(choices));
  return std::nullopt;
}

}  // namespace graft::harness::detail
