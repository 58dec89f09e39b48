#pragma once
// Shapes rendered the way the reference's messages show them: Python tuples.

#include <string>

#include <c10/util/ArrayRef.h>

namespace graft::detail {

// (), (3,), (2, 3)
std::string python_shape(c10::IntArrayRef sizes);

}  // namespace graft::detail
