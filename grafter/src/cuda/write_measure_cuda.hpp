#pragma once
// The fused receive pass on a CUDA device: stats/write_measure.hpp's three
// passes, for two tensors on one CUDA device, run by graft's own kernel
// (cuda/graft_kernels.hpp) on the device's current stream. The writes are
// the CPU pass's for every value (a NaN made by a scaling or a cast takes
// the device's payload, as ATen's CUDA ops give it); the sums are the CPU
// pass's up to their rounding (float64 throughout, where the CPU sums
// float32 and bfloat16 diffs in float32 blocks), and repeat bit for bit.
//
// Measuring passes block until the sums reach the host; cuda_write does not.
// The caller owns the target's version counter, as for the CPU passes.

#include <ATen/core/Tensor.h>

#include <graft/error.hpp>

#include "stats/write_measure.hpp"

namespace graft::detail {

// A CUDA call failed. target_unchanged(): the failure came before graft's
// kernel was queued, so the target was not written; otherwise the kernel
// was queued and the device reported the error later, and the target may
// hold some of the new values.
class cuda_pass_error : public error {
 public:
  cuda_pass_error(const std::string& message, bool target_unchanged)
      : error(message), target_unchanged_(target_unchanged) {}
  bool target_unchanged() const { return target_unchanged_; }

 private:
  bool target_unchanged_;
};

// cpu_write_measured's contract, for CUDA tensors on one device: contiguous,
// equal non-zero numel, dtypes with has_write_measure_loop; source may be
// the target itself but not overlap it otherwise. Throws graft::error for
// other operands (before any CUDA call), cuda_pass_error when CUDA fails.
measured_write cuda_write_measured(const at::Tensor& source, double scale, const at::Tensor& target);

// cuda_write_measured's writes without measuring; returns once queued.
void cuda_write(const at::Tensor& source, double scale, const at::Tensor& target);

// cuda_write_measured's measurements of writing candidate (scale 1) into
// target, without writing.
measured_write cuda_measure_graft(const at::Tensor& candidate, const at::Tensor& target);

}  // namespace graft::detail
