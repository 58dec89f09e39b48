#pragma once
// Which tensors can take part in a graft: a sender's tensor must hold values
// that travel as raw bytes, and a receiver's target must take them in place.
// The grafter checks both before anything moves or is written, so that an
// unusable tensor costs one event on its own rank: the sender then takes
// part as absent, and the exchange and the other ranks go on as usual. The
// c10d exchange refuses the same tensors at its header, for callers that hand
// it one directly.

#include <optional>
#include <string>

#include <ATen/core/Tensor.h>

namespace graft::detail {

// Why t cannot be grafted, as a clause with its fix ("its layout is Sparse,
// and only strided (dense) tensors can be grafted; convert it with
// to_dense() ..."); nullopt when it can.
std::optional<std::string> ungraftable_reason(const at::Tensor& t);

}  // namespace graft::detail
