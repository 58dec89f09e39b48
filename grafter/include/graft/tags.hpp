#pragma once
// Tags: the key -> value map attached to one dump call. Insertion order is kept
// (it is the order users wrote them in, and the order logs show them in).

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace graft {

// null, bool, int64, double or string.
class tag_value {
 public:
  using storage = std::variant<std::monostate, bool, std::int64_t, double, std::string>;

  tag_value() = default;
  tag_value(std::nullptr_t) {}
  tag_value(bool v) : value_(v) {}
  tag_value(int v) : value_(static_cast<std::int64_t>(v)) {}
  tag_value(long v) : value_(static_cast<std::int64_t>(v)) {}
  tag_value(long long v) : value_(static_cast<std::int64_t>(v)) {}
  tag_value(double v) : value_(v) {}
  tag_value(const char* v) : value_(std::string(v)) {}
  tag_value(std::string v) : value_(std::move(v)) {}
  tag_value(std::string_view v) : value_(std::string(v)) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_bool() const { return std::holds_alternative<bool>(value_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(value_); }
  bool is_double() const { return std::holds_alternative<double>(value_); }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return std::holds_alternative<std::string>(value_); }

  bool as_bool() const { return std::get<bool>(value_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(value_); }
  double as_double() const { return std::get<double>(value_); }
  const std::string& as_string() const { return std::get<std::string>(value_); }
  // Any number (or bool) as a double; callers check is_number()/is_bool() first.
  double numeric() const;

  const storage& raw() const { return value_; }
  friend bool operator==(const tag_value& a, const tag_value& b) { return a.value_ == b.value_; }
  friend bool operator!=(const tag_value& a, const tag_value& b) { return !(a == b); }

 private:
  storage value_;
};

// Python-like rendering: None, True, 3, 0.5, 'text'.
std::string to_display_string(const tag_value& value);

class tags {
 public:
  using entry = std::pair<std::string, tag_value>;

  tags() = default;
  tags(std::initializer_list<entry> entries);

  // Sets key (replacing an existing value in place, keeping its position).
  tags& set(std::string_view key, tag_value value);
  // The value of key, or nullptr when absent (filters read absent as null).
  const tag_value* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // The "name" tag when it is a string, else "".
  std::string_view name() const;

  const std::vector<entry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  // Python dict-like rendering: {'name': 'x', 'layer_id': 3}.
  std::string to_display_string() const;

 private:
  std::vector<entry> entries_;
};

// JSON form: an object (keys sorted, as every JSON document graft writes).
void to_json(nlohmann::json& out, const tags& t);
void to_json(nlohmann::json& out, const tag_value& v);
// Parses a JSON object of scalars; throws config_error naming the key otherwise.
tags tags_from_json(const nlohmann::json& object, std::string_view what);

// A 64-bit fingerprint of the tags (keys, types and values, in order).
std::uint64_t fingerprint(const tags& t);

}  // namespace graft
