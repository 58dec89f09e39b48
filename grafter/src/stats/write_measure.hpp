#pragma once
// The fused receive pass: writes a candidate into the target and measures the
// graft in the same pass over the data. Per element it reads the target's old
// value and the source value, forms the candidate (scale * source, in the
// source dtype), converts it to the target's dtype, accumulates the diff (old
// vs new target) and the value statistics of the old target and of the
// candidate, and stores the new value. (Within a range of 32768 elements the
// values are measured first and written second, while still in cache; see
// write_steps::fast_blocks.) The sums are the ones compare() and describe()
// compute (accumulators.hpp), bit for bit.

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>

#include "stats/passes.hpp"

namespace graft::detail {

// The dtypes the fused pass is instantiated for, as source and as target.
inline bool has_write_measure_loop(at::ScalarType type) {
  return type == at::kFloat || type == at::kDouble || type == at::kHalf ||
         type == at::kBFloat16;
}

struct measured_write {
  diff_metrics metrics;   // x: the target before, y: the target after
  value_stats before;     // the target before
  value_stats candidate;  // scale * source, in the source's dtype
};

// Whether `source * scale` has one meaning across libtorch releases: always
// for float32/float64 sources (the factor is rounded to the dtype), and for
// float16/bfloat16 when the factor is exact in that dtype (1.x rounds it to
// the dtype, 2.x keeps it in float). 2, 0.5 and 1 are exact everywhere.
bool scale_is_exact(at::ScalarType source, double scale);

// Writes to_dst_dtype(scale * source) into target. scale == 1 takes the
// source's values exactly; otherwise the factor is rounded to the source
// dtype, each value multiplied in the source dtype's math type (float for
// float16/bfloat16) and rounded back to the source dtype: libtorch's
// `source * scale`, in every release when scale_is_exact. Requires (and checks before writing a byte)
// CPU, contiguous tensors of equal, non-zero numel and dtypes with
// has_write_measure_loop; source may be target itself but must not overlap it
// otherwise (the caller checks that). Bumps nothing: the caller owns the
// target's version counter.
measured_write cpu_write_measured(const at::Tensor& source, double scale, const at::Tensor& target);

// cpu_write_measured's writes, value for value, without measuring anything.
void cpu_write(const at::Tensor& source, double scale, const at::Tensor& target);

// cpu_write_measured's measurements of writing candidate (scale 1) into
// target, bit for bit, without writing: the target is only read. What a
// compare-only name needs, without a scratch copy of the target. Requires
// cpu_write_measured's operands.
measured_write cpu_measure_graft(const at::Tensor& candidate, const at::Tensor& target);

// The tensor_info of t's layout (shape, stride, dtype, device) with statistics s.
tensor_info describe_with(const at::Tensor& t, const std::vector<std::int64_t>& stride,
                          const value_stats& s);

}  // namespace graft::detail
