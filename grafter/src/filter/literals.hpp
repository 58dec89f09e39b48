#pragma once
// Scanning of string and number literals, with Python's rules.

#include <cstddef>

#include "filter/compile_error.hpp"
#include "filter/token.hpp"

namespace graft::detail {

// Scans the string literal whose prefix (r, u or nothing) starts at start and
// whose opening quote is at quote. Fills out (kind, text) and returns the
// offset just past the closing quote.
std::size_t scan_string(const filter_source& source, std::size_t start, std::size_t quote, bool raw,
                        token& out);

// Scans the number literal at start (a digit, or '.' then a digit). Fills out
// (kind, integer or real) and returns the offset just past it.
std::size_t scan_number(const filter_source& source, std::size_t start, token& out);

}  // namespace graft::detail
