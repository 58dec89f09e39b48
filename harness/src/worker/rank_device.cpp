#include "worker/rank_device.hpp"

#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <graft/error.hpp>
#include <graft/harness/device_needs.hpp>

namespace graft::harness::worker {

namespace {

// The CUDA device count, 0 for a CPU-only libtorch or a machine without one.
int cuda_device_count() {
#ifdef GRAFT_TORCH_CUDA
  return at::hasCUDA() ? static_cast<int>(at::getNumGPUs()) : 0;
#else
  return 0;
#endif
}

}  // namespace

nlohmann::json device_answer() {
#ifdef GRAFT_TORCH_CUDA
  const bool cuda_built = true;
#else
  const bool cuda_built = false;
#endif
#ifdef GRAFT_WITH_NCCL
  const bool nccl_built = true;
#else
  const bool nccl_built = false;
#endif
  return {{"schema_version", kDeviceAnswerSchemaVersion},
          {"cuda_built", cuda_built},
          {"nccl_built", nccl_built},
          {"cuda_devices", cuda_device_count()}};
}

c10::Device rank_device(const std::string& device, int graft_rank) {
  if (device != "cuda") return c10::Device(c10::kCPU);
  const int count = cuda_device_count();
  if (count == 0) {
    GRAFT_THROW(error, "device \"cuda\": no CUDA device is visible to this worker (device count 0, or a CPU-only "
                       "libtorch); graft run skips such scenarios where it sees none, so check CUDA_VISIBLE_DEVICES");
  }
  const c10::Device chosen(c10::kCUDA, static_cast<c10::DeviceIndex>(graft_rank % count));
  c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(chosen);
  return chosen;
}

}  // namespace graft::harness::worker
