#pragma once
// Shapes rendered the way the reference's messages show them: Python tuples.

#include <cstdint>
#include <string>
#include <vector>

namespace graft {

// "()", "(3,)", "(2, 3)"
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace graft
