#pragma once
// A cast into an integer dtype is defined only for values that dtype can
// hold: ATen converts with static_cast, so NaN, an infinity or a value beyond
// the range comes out as whatever the machine gives (INT_MIN for NaN on x86),
// and the target would hold a number nobody sent. Such a candidate is
// refused before anything is written.

#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

namespace graft::detail {

// Why candidate's values cannot be cast to target's integer dtype, as a
// clause ("1 NaN or infinite value, which no cast to int32 defines"), or
// nullopt when they can (or target's dtype is no integer one, or is
// candidate's). Truncating a fraction (1.5 -> 1) is a defined cast.
std::optional<std::string> integer_cast_problem(const at::Tensor& candidate, const at::Tensor& target);

}  // namespace graft::detail
