#include <graft/tags.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include <graft/error.hpp>

#include "base/json_text.hpp"

namespace graft {

double tag_value::numeric() const {
  if (is_int()) return static_cast<double>(as_int());
  if (is_double()) return as_double();
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  return std::nan("");
}

namespace {

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[32];
  // The shortest representation that round-trips, as Python's repr.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

std::string python_string_repr(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

std::string to_display_string(const tag_value& value) {
  if (value.is_null()) return "None";
  if (value.is_bool()) return value.as_bool() ? "True" : "False";
  if (value.is_int()) return std::to_string(value.as_int());
  if (value.is_double()) return python_float_repr(value.as_double());
  return python_string_repr(value.as_string());
}

tags::tags(std::initializer_list<entry> entries) {
  for (const auto& [key, value] : entries) set(key, value);
}

tags& tags::set(std::string_view key, tag_value value) {
  for (auto& [existing, stored] : entries_) {
    if (existing == key) {
      stored = std::move(value);
      return *this;
    }
  }
  entries_.emplace_back(std::string(key), std::move(value));
  return *this;
}

const tag_value* tags::find(std::string_view key) const {
  for (const auto& [existing, stored] : entries_) {
    if (existing == key) return &stored;
  }
  return nullptr;
}

std::string_view tags::name() const {
  const tag_value* v = find("name");
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

std::string tags::to_display_string() const {
  std::string out = "{";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i > 0) out += ", ";
    out += python_string_repr(entries_[i].first) + ": " + graft::to_display_string(entries_[i].second);
  }
  return out + "}";
}

void to_json(nlohmann::json& out, const tag_value& v) {
  if (v.is_null()) out = nullptr;
  else if (v.is_bool()) out = v.as_bool();
  else if (v.is_int()) out = v.as_int();
  else if (v.is_double()) out = v.as_double();
  else out = v.as_string();
}

void to_json(nlohmann::json& out, const tags& t) {
  out = nlohmann::json::object();
  for (const auto& [key, value] : t.entries()) to_json(out[key], value);
}

tags tags_from_json(const nlohmann::json& object, std::string_view what) {
  if (!object.is_object()) {
    GRAFT_THROW(config_error, std::string(what) + ": expected an object of tags, got " + detail::json_text(object));
  }
  tags out;
  for (const auto& [key, value] : object.items()) {
    if (value.is_null()) out.set(key, nullptr);
    else if (value.is_boolean()) out.set(key, value.get<bool>());
    else if (value.is_number_integer()) out.set(key, value.get<std::int64_t>());
    else if (value.is_number()) out.set(key, value.get<double>());
    else if (value.is_string()) out.set(key, value.get<std::string>());
    else {
      GRAFT_THROW(config_error, std::string(what) + "." + key +
                                    ": a tag value must be null, bool, int, float or string, got " +
                                    detail::json_text(value));
    }
  }
  return out;
}

namespace {

constexpr std::uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

void mix(std::uint64_t& h, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= kFnvPrime;
  }
}

}  // namespace

std::uint64_t fingerprint(const tags& t) {
  std::uint64_t h = kFnvOffset;
  for (const auto& [key, value] : t.entries()) {
    mix(h, key.data(), key.size() + 1);  // the terminating NUL separates key from value
    const auto kind = static_cast<unsigned char>(value.raw().index());
    mix(h, &kind, 1);
    if (value.is_bool()) {
      const bool b = value.as_bool();
      mix(h, &b, sizeof b);
    } else if (value.is_int()) {
      const auto i = value.as_int();
      mix(h, &i, sizeof i);
    } else if (value.is_double()) {
      const double d = value.as_double();
      mix(h, &d, sizeof d);
    } else if (value.is_string()) {
      mix(h, value.as_string().data(), value.as_string().size() + 1);
    }
  }
  return h;
}

}  // namespace graft
