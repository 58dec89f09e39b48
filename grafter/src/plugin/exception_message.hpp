#pragma once
// The text of an exception, for an event or a graft error. libtorch reports
// failures (TORCH_CHECK in an ATen op or in a user's transform, c10d,
// running out of memory) as c10::Error, whose what() carries a C++
// backtrace: dozens of frames with addresses that change from run to run.
// Events name what went wrong; the frames would bury that and make every log
// snapshot of the failure differ.
//
// It lives in the plugin component because that is the lowest one with
// libtorch that both the grafter (core) and the c10d exchange build on.

#include <exception>
#include <string>

namespace graft::detail {

// what() without the backtrace for a c10::Error (c10d::TimeoutError is one
// from libtorch 2.x on), what() for anything else.
std::string exception_message(const std::exception& e);

}  // namespace graft::detail
