#pragma once
// Compile errors of the filter language: "<field>: <problem> at column <n>",
// then the expression and a caret under the offending character.

#include <cstddef>
#include <string_view>

namespace graft::detail {

// The expression being compiled and the config field it came from.
struct filter_source {
  std::string_view field;
  std::string_view text;
};

// Throws filter_error for the character at byte offset (text.size() means
// "at the end"). The column counts characters (UTF-8 code points), from 1.
[[noreturn]] void throw_filter_error(const filter_source& source, std::size_t offset,
                                     std::string_view problem);

}  // namespace graft::detail
