#pragma once
// Parses a filter expression into its compiled form, with Python's grammar
// and precedence: or < and < not < comparisons (== != < <= > >= in, not in,
// is, is not; chained as in Python) < unary minus < calls, literals, names,
// parentheses.

#include "filter/compile_error.hpp"
#include "filter/program.hpp"

namespace graft::detail {

// Deeper nesting (parentheses, not, unary minus) is rejected, so that neither
// the parser nor the evaluator can run out of stack.
inline constexpr int kMaxNesting = 200;

// Throws filter_error on anything that is not a valid filter: syntax, unknown
// functions, wrong arity, non-literal or malformed regular expressions.
compiled_filter parse_filter(const filter_source& source);

}  // namespace graft::detail
