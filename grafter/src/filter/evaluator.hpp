#pragma once
// Evaluation of a compiled filter.

#include <graft/tags.hpp>

#include "filter/program.hpp"

namespace graft::detail {

// bool(expression) for these tags. Only reads the program, so any number of
// threads may evaluate one program at once; never allocates, never throws.
bool evaluate(const compiled_filter& program, const tags& t) noexcept;

}  // namespace graft::detail
