// The fused receive pass on CUDA tensors (see write_measure_cuda.hpp): checks
// the operands, queues graft's kernel on the current stream and turns its
// sums into the CPU pass's measured_write.

#include "cuda/write_measure_cuda.hpp"

#include <cstdint>
#include <string>

#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "cuda/graft_kernels.hpp"
#include "stats/partials.hpp"

namespace graft::detail {
namespace {

graft::cuda::dtype kernel_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return graft::cuda::dtype::float32;
    case at::kHalf: return graft::cuda::dtype::float16;
    case at::kBFloat16: return graft::cuda::dtype::bfloat16;
    case at::kDouble: return graft::cuda::dtype::float64;
    default: break;
  }
  GRAFT_THROW(error, std::string("graft's CUDA pass: no kernel for dtype ") + c10::toString(type) +
                         "; it takes float32, float16, bfloat16 and float64");
}

void check_operand(const at::Tensor& t, const char* role) {
  if (!t.defined() || !t.is_cuda() || t.layout() != at::kStrided || !t.is_contiguous() ||
      !has_write_measure_loop(t.scalar_type())) {
    GRAFT_THROW(error, std::string("graft's CUDA pass: the ") + role +
                           " must be a contiguous CUDA float32/float64/float16/bfloat16 tensor");
  }
}

void check_operands(const at::Tensor& source, const at::Tensor& target) {
  check_operand(source, "source");
  check_operand(target, "target");
  if (source.device() != target.device()) {
    GRAFT_THROW(error, "graft's CUDA pass: source on " + source.device().str() + " and target on " +
                           target.device().str() + "; both must be on one device");
  }
  if (source.numel() != target.numel() || target.numel() == 0) {
    GRAFT_THROW(error, "graft's CUDA pass: source and target need the same, non-zero numel");
  }
}

[[noreturn]] void fail(const char* step, cudaError_t e, const at::Tensor& target, bool target_unchanged) {
  throw cuda_pass_error(std::string("graft's CUDA pass on ") + target.device().str() + ": " + step + " failed: " +
                            cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")",
                        target_unchanged);
}

value_stats to_stats(const graft::cuda::value_sums& s) {
  return to_value_stats(stats_partial{s.nan_count, s.inf_count, s.finite_count, s.min, s.max, s.sum});
}

measured_write to_measured(const graft::cuda::graft_sums& s, std::int64_t n) {
  diff_partial diff;
  diff.sum_xx = s.sum_xx;
  diff.sum_yy = s.sum_yy;
  diff.sum_xy = s.sum_xy;
  diff.sum_dd = s.sum_dd;
  diff.sum_dx = s.sum_dx;
  diff.sum_abs = s.sum_abs;
  diff.max_abs = s.max_abs;
  diff.max_abs_index = s.max_abs_index;
  diff.x_nan = s.x_nan;
  diff.x_inf = s.x_inf;
  diff.y_nan = s.y_nan;
  diff.y_inf = s.y_inf;
  return {to_metrics(diff, n), to_stats(s.before), to_stats(s.candidate)};
}

// Runs one measuring pass (queue) on the target's device and current stream
// and fetches its sums. The workspace comes from ATen's caching allocator on
// that stream, and is free again once fetch() has synchronised it.
template <typename Queue>
measured_write run_measured(const at::Tensor& source, const at::Tensor& target, bool writes, Queue&& queue) {
  check_operands(source, target);
  const c10::cuda::CUDAGuard on_device(target.device());
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(target.device().index()).stream();
  const at::Tensor scratch = at::empty({static_cast<std::int64_t>(graft::cuda::workspace::bytes())},
                                       at::TensorOptions().dtype(at::kByte).device(target.device()));
  graft::cuda::workspace ws(scratch.data_ptr());
  if (const cudaError_t e = queue(ws, stream); e != cudaSuccess) fail("queueing the kernel", e, target, true);
  graft::cuda::graft_sums sums{};
  if (const cudaError_t e = graft::cuda::fetch(ws, &sums, stream); e != cudaSuccess) {
    fail("running the kernel", e, target, !writes);
  }
  return to_measured(sums, target.numel());
}

}  // namespace

measured_write cuda_write_measured(const at::Tensor& source, double scale, const at::Tensor& target) {
  return run_measured(source, target, true, [&](graft::cuda::workspace& ws, cudaStream_t stream) {
    return graft::cuda::fused_write_measure(source.data_ptr(), kernel_dtype(source.scalar_type()), target.data_ptr(),
                                            kernel_dtype(target.scalar_type()), target.numel(), scale, ws, stream);
  });
}

void cuda_write(const at::Tensor& source, double scale, const at::Tensor& target) {
  check_operands(source, target);
  const c10::cuda::CUDAGuard on_device(target.device());
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(target.device().index()).stream();
  if (const cudaError_t e =
          graft::cuda::fused_write(source.data_ptr(), kernel_dtype(source.scalar_type()), target.data_ptr(),
                                   kernel_dtype(target.scalar_type()), target.numel(), scale, stream);
      e != cudaSuccess) {
    fail("queueing the kernel", e, target, true);
  }
}

measured_write cuda_measure_graft(const at::Tensor& candidate, const at::Tensor& target) {
  return run_measured(candidate, target, false, [&](graft::cuda::workspace& ws, cudaStream_t stream) {
    return graft::cuda::measure_graft(candidate.data_ptr(), kernel_dtype(candidate.scalar_type()),
                                      target.data_ptr(), kernel_dtype(target.scalar_type()), target.numel(), ws,
                                      stream);
  });
}

}  // namespace graft::detail
