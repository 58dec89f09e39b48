#pragma once
// The regular expressions of search() and match(): RE2, compiled once when
// the filter is compiled. RE2 runs in time linear in the text, so no pattern
// (not even (a+)+$) can stall a dump call.

#include <re2/re2.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "filter/compile_error.hpp"

namespace graft::detail {

// Compiles pattern (the literal at offset, argument of function); throws
// filter_error with RE2's reason when it is not a valid expression.
std::unique_ptr<const re2::RE2> compile_pattern(const filter_source& source, std::size_t offset,
                                                const std::string& pattern,
                                                std::string_view function);

}  // namespace graft::detail
