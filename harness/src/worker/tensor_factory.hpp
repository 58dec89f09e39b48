#pragma once
// Deterministic tensors from scenario specs, and tensors back to JSON values.

#include <map>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <graft/harness/scenario.hpp>

namespace graft::harness::worker {

// Builds the tensor a spec describes (in float64, then cast to its dtype, so
// the same spec gives the same values everywhere). `vars` holds the earlier
// steps' tensors of this rank for source::from. Throws fixture_error when a
// variable is missing, or when a `from` spec gives a value its dtype cannot
// hold (see scenario/dtype_values.hpp).
at::Tensor make_tensor(const tensor_spec& spec, const std::map<std::string, at::Tensor>& vars);

// {"dtype": ..., "shape": [...], "values": [flat, as float64]}.
nlohmann::json tensor_value(const at::Tensor& t);

}  // namespace graft::harness::worker
