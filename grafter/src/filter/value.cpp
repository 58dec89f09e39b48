#include "filter/value.hpp"

#include <cmath>
#include <limits>
#include <variant>

namespace graft::detail {

value view_of(const tag_value* tag) noexcept {
  value v;
  if (tag == nullptr) return v;
  const auto& raw = tag->raw();
  if (const auto* b = std::get_if<bool>(&raw)) {
    v.kind = value_kind::boolean;
    v.boolean = *b;
  } else if (const auto* i = std::get_if<std::int64_t>(&raw)) {
    v.kind = value_kind::integer;
    v.integer = *i;
  } else if (const auto* d = std::get_if<double>(&raw)) {
    v.kind = value_kind::real;
    v.real = *d;
  } else if (const auto* s = std::get_if<std::string>(&raw)) {
    v.kind = value_kind::string;
    v.string = *s;
  }
  return v;
}

bool truthy(const value& v) noexcept {
  switch (v.kind) {
    case value_kind::null: return false;
    case value_kind::boolean: return v.boolean;
    case value_kind::integer: return v.integer != 0;
    case value_kind::real: return v.real != 0.0;  // NaN is true, as in Python
    case value_kind::string: return !v.string.empty();
    case value_kind::match: return true;
  }
  return false;
}

value negated(const value& v) noexcept {
  value out;
  if (v.kind == value_kind::integer) {
    if (v.integer == std::numeric_limits<std::int64_t>::min()) {
      out.kind = value_kind::real;
      out.real = -static_cast<double>(v.integer);
    } else {
      out.kind = value_kind::integer;
      out.integer = -v.integer;
    }
  } else if (v.kind == value_kind::real) {
    out.kind = value_kind::real;
    out.real = -v.real;
  }
  return out;
}

namespace {

template <typename T>
ordering three_way(const T& a, const T& b) {
  return a < b ? ordering::less : b < a ? ordering::greater : ordering::same;
}

// An int against a float without rounding the int: 2**53 + 1 > 2.0**53.
ordering compare_int_real(std::int64_t i, double d) {
  if (std::isnan(d)) return ordering::unordered;
  constexpr double kTwoPow63 = 9223372036854775808.0;
  if (d >= kTwoPow63) return ordering::less;
  if (d < -kTwoPow63) return ordering::greater;
  const double whole = std::trunc(d);
  const auto whole_int = static_cast<std::int64_t>(whole);  // exact: |whole| < 2**63
  if (i != whole_int) return three_way(i, whole_int);
  return three_way(0.0, d - whole);
}

ordering reverse(ordering o) {
  return o == ordering::less ? ordering::greater : o == ordering::greater ? ordering::less : o;
}

}  // namespace

ordering compare(const value& a, const value& b) noexcept {
  using k = value_kind;
  if (a.kind == k::integer && b.kind == k::integer) return three_way(a.integer, b.integer);
  if (a.kind == k::integer && b.kind == k::real) return compare_int_real(a.integer, b.real);
  if (a.kind == k::real && b.kind == k::integer)
    return reverse(compare_int_real(b.integer, a.real));
  if (a.kind == k::real && b.kind == k::real) {
    if (std::isnan(a.real) || std::isnan(b.real)) return ordering::unordered;
    return three_way(a.real, b.real);
  }
  if (a.kind == k::string && b.kind == k::string) {
    const int c = a.string.compare(b.string);
    return c < 0 ? ordering::less : c > 0 ? ordering::greater : ordering::same;
  }
  if (a.kind == k::boolean && b.kind == k::boolean) return three_way(a.boolean, b.boolean);
  return ordering::unordered;
}

bool equal(const value& a, const value& b) noexcept {
  if (a.kind == value_kind::null || b.kind == value_kind::null) return a.kind == b.kind;
  return compare(a, b) == ordering::same;
}

}  // namespace graft::detail
