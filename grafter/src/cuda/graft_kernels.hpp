#pragma once
// graft's own CUDA kernels, on raw device pointers (no libtorch): the fused
// transform+copy that writes scale * source into the target while measuring
// the graft, the same write without measuring, the measurements of a write
// without the write, and the plain "read both" pass that is the metrics'
// floor. The recv path reaches them through cuda/write_measure_cuda.hpp.
//
// Contract: every function enqueues on `stream` and returns at once; results
// land in the workspace and are read with fetch(). A measuring pass is one
// kernel launch: each block writes its partial and the last block to finish
// folds all partials in block order, so with float64 sums and a launch shape
// fixed by n the results repeat bit for bit. Pointers may have any alignment
// (16-byte aligned ones take the vectorised loop). Errors come back as
// cudaError_t; nothing throws. An error from a launching function means that
// no kernel was queued (an error already pending is returned before any
// launch), so the target was not written; an error from fetch() comes after
// the kernel was queued.
//
// The values written are those of ATen's own CUDA ops (`source * scale`, then
// copy_ into the target's dtype), which are the CPU's for every value but a
// NaN that a scaling or a cast produces: its payload is the device's.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace graft::cuda {

enum class dtype { float32, float16, bfloat16, float64 };

// Value statistics of one side; min/max/sum over its finite values.
struct value_sums {
  long long nan_count, inf_count, finite_count;
  double min, max, sum;
};

// The diff of x (target before) and y (target after), with the fields of
// graft::diff_metrics, plus both sides' statistics: x's, and the candidate's
// (scale * source in the source dtype). Two float32 or two bfloat16 targets
// differ by their float32 difference, others by their float64 one, as on the
// CPU; every product and sum is float64.
struct graft_sums {
  double sum_xx, sum_yy, sum_xy, sum_dd, sum_dx, sum_abs, max_abs;
  long long max_abs_index;
  long long x_nan, x_inf, y_nan, y_inf;
  value_sums before, candidate;
};

// Device scratch for the per-block partials, the folded result and the
// count of finished blocks.
class workspace {
 public:
  // Device bytes one workspace takes.
  static std::size_t bytes();

  // A workspace that allocates its own memory in reserve() and frees it.
  workspace() = default;
  // A workspace in `device_buffer`: bytes() bytes of device memory, 16-byte
  // aligned, that the caller owns and keeps until the last fetch().
  explicit workspace(void* device_buffer) : buffer_(device_buffer) {}
  ~workspace();
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;

  cudaError_t reserve();  // once, before the first launch; idempotent
  void* partials() const { return buffer_; }
  graft_sums* result() const;
  unsigned* finished_blocks() const;

 private:
  void* buffer_ = nullptr;
  bool owned_ = false;
};

// target[i] = convert<target_type>(scale * source[i]) for i < n, measuring
// old vs new target in the same pass. scale == 1 copies source values
// exactly (bit for bit when the dtypes agree); otherwise the factor is
// rounded to the source dtype and the product formed in its math type
// (float for float16/bfloat16) and rounded to the source dtype, as
// `source * scale`. source may be target itself, or not overlap it at all.
cudaError_t fused_write_measure(const void* source, dtype source_type, void* target, dtype target_type,
                                std::int64_t n, double scale, workspace& ws, cudaStream_t stream);

// fused_write_measure's writes, without measuring (and without a workspace).
cudaError_t fused_write(const void* source, dtype source_type, void* target, dtype target_type,
                        std::int64_t n, double scale, cudaStream_t stream);

// fused_write_measure's sums for writing candidate (scale 1) into target,
// without the write: the target is only read.
cudaError_t measure_graft(const void* candidate, dtype candidate_type, const void* target, dtype target_type,
                          std::int64_t n, workspace& ws, cudaStream_t stream);

// The same sums for x (before) and y (after), both of type `type`.
cudaError_t measure(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                    cudaStream_t stream);

// The floor of measure(): reads every element of x and y once (a float sum,
// written to ws so the reads cannot be optimised away).
cudaError_t read_both(const void* x, const void* y, dtype type, std::int64_t n, workspace& ws,
                      cudaStream_t stream);

// Copies the last result to the host (synchronises the stream).
cudaError_t fetch(const workspace& ws, graft_sums* out, cudaStream_t stream);

}  // namespace graft::cuda
