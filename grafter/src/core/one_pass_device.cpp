#include "core/one_pass_device.hpp"

namespace graft::detail {

bool cuda_kernels_built() {
#ifdef GRAFT_WITH_CUDA_KERNELS
  return true;
#else
  return false;
#endif
}

one_pass_device one_pass_device_for(c10::Device source, c10::Device target, bool cuda_kernels) {
  if (source.is_cpu() && target.is_cpu()) return one_pass_device::cpu;
  // The kernel reads and writes through one device's pointers: a source on
  // another GPU would need peer access, which the copy_ fallback arranges.
  if (cuda_kernels && source.is_cuda() && target.is_cuda() && source == target) return one_pass_device::cuda;
  return one_pass_device::none;
}

}  // namespace graft::detail
