#pragma once
// A compiled boolean expression over tags, in the language users write for the
// reference grafter (a safe subset of Python expressions):
//
//   name == 'x' and layer_id < 3
//   name in ("layer_input", "attn_output") and graft_phase == "prefill"
//   search(r'attn.*', name) is not None
//   layer_id is None or not (layer_id >= 24)
//   False
//
// Literals: 'x', "x", r'...', ints, floats, True, False, None. Operators:
// == != < <= > >=, in / not in (tuple or list of literals), is None /
// is not None, and / or / not, parentheses. Functions: search(pattern, value)
// and match(pattern, value) (RE2 regular expressions; match anchors at the
// start, like Python's re.match); each returns a truthy "match" or None.
//
// Semantics, chosen so that a filter can never crash the host program:
// - an unknown tag reads as None;
// - ordering comparisons (< <= > >=) between values of incompatible types
//   (None < 3, "a" < 3) are false, never an error;
// - ints and floats compare numerically; bool is not a number here;
// - search/match on a non-string value is None.
//
// Compiling throws filter_error with the column and a caret line under the
// expression. Evaluation is thread-safe, allocates nothing and never throws.

#include <memory>
#include <string>
#include <string_view>

#include <graft/tags.hpp>

namespace graft {

class filter {
 public:
  // Compiles expression; field names the config field for error messages
  // (e.g. "b2t_filter"). Throws filter_error.
  static filter compile(std::string_view expression, std::string_view field = "filter");

  filter(filter&&) noexcept;
  filter& operator=(filter&&) noexcept;
  ~filter();

  bool matches(const tags& t) const noexcept;
  const std::string& expression() const;

 private:
  struct program;
  explicit filter(std::unique_ptr<const program> compiled);
  std::unique_ptr<const program> program_;
};

}  // namespace graft
