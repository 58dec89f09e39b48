#pragma once
// Which numbers a scenario tensor can hold. Scenario tensors are made in
// float64 and then cast to their dtype. A cast that only rounds is what the
// author asked for; one that truncates, overflows to infinity, or is undefined
// (NaN or a value beyond the range into an integer) makes the scenario check
// numbers its author never wrote, so such a number is refused.

#include <optional>
#include <string>

namespace graft::harness::detail {

// Why v cannot be an element of a scenario tensor of `dtype` (nullopt when it
// can, or when dtype is not a scenario dtype). shown: v as the author wrote it.
std::optional<std::string> dtype_value_problem(double v, const std::string& shown, const std::string& dtype);

// v as a scenario author writes it: whole numbers in full (2147483648, not
// 2.14748365e+09), NaN and the infinities by the names a spec uses.
std::string number_text(double v);

}  // namespace graft::harness::detail
