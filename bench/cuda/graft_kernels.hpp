#pragma once
// graft's own CUDA kernels, on raw device pointers (no libtorch): the fused
// transform+copy that writes scale * source into the target while measuring
// the graft, the same one-pass metrics without the write, and the plain
// "read both" pass that is the metrics' floor.
//
// Contract: every function enqueues on `stream` and returns at once; results
// land in the workspace's device buffer and are read with fetch(). Sums use
// float64 and a fixed launch shape for a given n, so results repeat bit for
// bit. Pointers may have any alignment (16-byte aligned ones take the
// vectorised loop). Errors come back as cudaError_t; nothing throws.

#include <cstdint>

#include <cuda_runtime_api.h>

namespace graft::cuda {

enum class dtype { float32, float16, bfloat16 };

// Value statistics of one side; min/max/sum over its finite values.
struct value_sums {
  long long nan_count, inf_count, finite_count;
  double min, max, sum;
};

// The diff of x (target before) and y (target after), as graft::diff_metrics,
// plus both sides' statistics: x's, and the candidate's (scale * source in
// the source dtype) for a write, y's for measure().
struct graft_sums {
  double sum_xx, sum_yy, sum_xy, sum_dd, sum_abs, max_abs;
  long long max_abs_index;
  long long x_nan, x_inf, y_nan, y_inf;
  value_sums before, candidate;
};

// Device scratch for the per-block partials and the folded result.
class workspace {
 public:
  workspace() = default;
  ~workspace();
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  cudaError_t reserve();  // once, before the first launch; idempotent
  void* partials() const { return partials_; }
  graft_sums* result() const { return result_; }

 private:
  void* partials_ = nullptr;
  graft_sums* result_ = nullptr;
};

// target[i] = convert<target_type>(scale * source[i]) for i < n, measuring
// old vs new target in the same pass. scale == 1 copies source values
// exactly; otherwise the product is formed in float (float32/16/bf16) and
// rounded to the source dtype, as ATen's `source * scale`.
cudaError_t fused_write_measure(const void* source, dtype source_type, void* target, dtype target_type,
                                std::int64_t n, double scale, workspace& ws, cudaStream_t stream);

// The same sums for x (before) and y (after), both of type `type`, no write.
cudaError_t measure(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                    cudaStream_t stream);

// The floor of measure(): reads every element of x and y once (a float sum,
// written to ws so the reads cannot be optimised away).
cudaError_t read_both(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                      cudaStream_t stream);

// Copies the last result to the host (synchronises the stream).
cudaError_t fetch(const workspace& ws, graft_sums* out, cudaStream_t stream);

}  // namespace graft::cuda
