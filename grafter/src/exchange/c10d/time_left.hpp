#pragma once
// What is left of a deadline, as the waits of c10d and Gloo take it.

#include <algorithm>
#include <chrono>

namespace graft::detail {

// What is left of the deadline in whole milliseconds, and at least
// `at_least`: a wait given nothing would not wait at all, and c10d's store
// connects in whole seconds.
inline std::chrono::milliseconds time_left(std::chrono::steady_clock::time_point deadline,
                                           std::chrono::milliseconds at_least = std::chrono::milliseconds(1)) {
  return std::max(at_least, std::chrono::duration_cast<std::chrono::milliseconds>(
                                deadline - std::chrono::steady_clock::now()));
}

}  // namespace graft::detail
