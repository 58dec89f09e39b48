#pragma once
// The values a filter computes with: a non-owning view of a tag value, a
// literal, or the "match" that search()/match() return. Building one never
// allocates; strings are views into the tags or into the compiled filter.

#include <cstdint>
#include <graft/tags.hpp>
#include <string_view>

namespace graft::detail {

enum class value_kind : std::uint8_t { null, boolean, integer, real, string, match };

struct value {
  value_kind kind = value_kind::null;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0.0;
  std::string_view string;
};

// The tag's value; an absent tag (nullptr) is None.
value view_of(const tag_value* tag) noexcept;

// Python's bool(v): None, False, 0, 0.0 and '' are false; a match is true.
bool truthy(const value& v) noexcept;

// Python's -v for a number. -(-2**63) becomes the float 2.0**63, since
// Python's ints do not overflow and ours do; anything else negates to None
// instead of Python's TypeError.
value negated(const value& v) noexcept;

// Python's ==, except that a bool is not a number (True == 1 is false here, as
// bools and ints are different tag types) and two matches are never equal
// (Python compares match objects by identity, and each call makes a new one).
bool equal(const value& a, const value& b) noexcept;

enum class ordering : std::uint8_t { less, same, greater, unordered };

// How a compares to b: numbers numerically (an int and a float exactly, not by
// rounding the int to a double), strings by bytes (= by code point in UTF-8),
// bools False < True. Anything else, and NaN, is unordered: every ordering
// comparison on it is false instead of Python's TypeError.
ordering compare(const value& a, const value& b) noexcept;

}  // namespace graft::detail
