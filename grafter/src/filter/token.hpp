#pragma once
// The tokens of the filter language (a subset of Python's).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filter/compile_error.hpp"

namespace graft::detail {

enum class token_kind : std::uint8_t {
  end,
  name,
  string,
  integer,
  real,
  left_paren,
  right_paren,
  left_bracket,
  right_bracket,
  comma,
  equal,
  not_equal,
  less,
  less_equal,
  greater,
  greater_equal,
  assign,
  minus,
  kw_and,
  kw_or,
  kw_not,
  kw_in,
  kw_is,
  kw_true,
  kw_false,
  kw_none,
};

struct token {
  token_kind kind = token_kind::end;
  std::size_t offset = 0;   // byte offset in the expression
  std::string_view source;  // the token as written
  std::string text;         // name: the identifier; string: the decoded value
  std::int64_t integer = 0;
  // 9223372036854775808, one past INT64_MAX: a literal only after '-'.
  bool is_int64_min_magnitude = false;
  double real = 0.0;
};

inline constexpr std::string_view kIntegerOutOfRange =
    "integer literal out of range (tags are 64-bit integers)";

// Splits the expression into tokens, ending with one token_kind::end.
// Throws filter_error for characters and literals the language does not have.
std::vector<token> tokenize(const filter_source& source);

}  // namespace graft::detail
