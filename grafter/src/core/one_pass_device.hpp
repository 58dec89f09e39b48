#pragma once
// Which one-pass write can take a source and a target, by their devices:
// the CPU loops (stats/write_measure.hpp) for two CPU tensors, graft's CUDA
// kernel (cuda/write_measure_cuda.hpp) for two tensors on one CUDA device in
// a build that has it. Anything else goes through ATen (conform, compare,
// copy_). The dtype, layout and overlap checks are the recv guard's.

#include <c10/core/Device.h>

namespace graft::detail {

enum class one_pass_device { none, cpu, cuda };

// Whether this build has graft's CUDA kernel in the recv path: compiled with
// a CUDA compiler against a libtorch with CUDA (GRAFT_WITH_CUDA_KERNELS).
bool cuda_kernels_built();

// The one-pass write for these devices; cuda_kernels says whether the CUDA
// kernel may be used (cuda_kernels_built(), or a test's choice).
one_pass_device one_pass_device_for(c10::Device source, c10::Device target, bool cuda_kernels);

}  // namespace graft::detail
