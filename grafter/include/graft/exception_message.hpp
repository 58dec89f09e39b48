#pragma once
// The text of an exception, for an event or a graft error. libtorch reports
// failures (TORCH_CHECK in an ATen op or in a user's transform, c10d,
// running out of memory) as c10::Error, whose what() carries a C++
// backtrace: dozens of frames with addresses that change from run to run.
// Events name what went wrong; the frames would bury that and make every log
// snapshot of the failure differ.
//
// It is built in the torch_base component, which every component with
// libtorch builds on; hosts and the scenario worker use it for their own
// messages.

#include <exception>
#include <string>

namespace graft {

// what() without the backtrace for a c10::Error (c10d::TimeoutError is one
// from libtorch 2.x on), what() for anything else.
std::string exception_message(const std::exception& e);

}  // namespace graft
