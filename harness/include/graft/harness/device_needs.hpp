#pragma once
// What a scenario needs of the machine beyond a CPU (a CUDA device, NCCL),
// and what the machine offers, as the worker sees it: the worker links the
// libtorch the grafts run on, the runner none. A scenario whose needs are not
// met is skipped with the reason, never run and never passed.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <graft/harness/scenario.hpp>

namespace graft::harness {

struct device_inventory {
  bool cuda_built = false;  // the worker's libtorch was built with CUDA
  bool nccl_built = false;  // graft was built with backend=nccl
  int cuda_devices = 0;     // CUDA devices the worker sees
};

// The worker's answer to --probe-devices:
//   {"schema_version": 1, "cuda_built": b, "nccl_built": b, "cuda_devices": n}
inline constexpr int kDeviceAnswerSchemaVersion = 1;

// From the worker's answer; throws graft::error naming what is missing or
// malformed (a worker from another build).
device_inventory device_inventory_from_json(const nlohmann::json& answer);

// Why s cannot run with what `have` offers, as a sentence with the fix;
// nullopt when it can (always, for a scenario with no CUDA rank).
std::optional<std::string> unmet_device_needs(const scenario& s, const device_inventory& have);

// CUDA's first initialisation in a process can take a while.
inline constexpr std::chrono::seconds kDeviceProbeLimit{120};

// Starts `worker --probe-devices FILE` (FILE and its log in `folder`) and
// reads its answer. Throws graft::error naming the worker and the end of its
// log when it fails or runs past `limit`.
device_inventory probe_devices(const std::filesystem::path& worker, const std::filesystem::path& folder,
                               std::chrono::seconds limit);

}  // namespace graft::harness
