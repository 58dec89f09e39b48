#pragma once
// Where a rank makes its tensors, and which devices this process's libtorch
// offers (the runner asks before it starts a scenario with CUDA ranks).

#include <string>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

namespace graft::harness::worker {

// The answer to --probe-devices, as device_needs.hpp reads it.
nlohmann::json device_answer();

// "cpu" -> cpu; "cuda" -> cuda:(graft_rank % device count), made this
// process's current CUDA device (so that anything else CUDA allocates lands
// there too). On one host every rank gets its own device when there are
// enough: NCCL refuses two ranks of one group on one device. Throws
// graft::error when no CUDA device is visible.
c10::Device rank_device(const std::string& device, int graft_rank);

}  // namespace graft::harness::worker
