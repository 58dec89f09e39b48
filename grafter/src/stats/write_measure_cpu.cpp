// cpu_write_measured: one pass that writes the candidate into the target and
// accumulates the diff and both sides' statistics (see write_measure.hpp).
// The loops themselves are in write_steps.hpp, built per source dtype.

#include "stats/write_measure.hpp"

#include <string>
#include <type_traits>

#include <ATen/Dispatch.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <graft/error.hpp>

#include "stats/write_passes.hpp"

namespace graft::detail {
namespace {

void check_operand(const at::Tensor& t, const char* role) {
  if (!t.defined() || !t.is_cpu() || t.layout() != at::kStrided || !t.is_contiguous() ||
      !has_write_measure_loop(t.scalar_type())) {
    GRAFT_THROW(error, std::string("the one-pass write: the ") + role +
                           " must be a contiguous CPU float32/float64/float16/bfloat16 tensor");
  }
}

}  // namespace

bool scale_is_exact(at::ScalarType source, double scale) {
  bool exact = false;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, source, "graft_scale_is_exact", [&] {
    exact = static_cast<double>(static_cast<scalar_t>(scale)) == scale ||
            std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>;
  });
  return exact;
}

namespace {

void check_operands(const at::Tensor& source, const at::Tensor& target) {
  check_operand(source, "source");
  check_operand(target, "target");
  if (source.numel() != target.numel() || target.numel() == 0) {
    GRAFT_THROW(error, "the one-pass write: source and target need the same, non-zero numel");
  }
}

template <pass_mode kMode>
write_partial write_checked(const at::Tensor& source, double scale, const at::Tensor& target) {
  check_operands(source, target);
  write_partial total;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, source.scalar_type(), "graft_write_measured_source",
                                  [&] { total = write_from<scalar_t, kMode>(source, scale, target); });
  return total;
}

measured_write to_measured_write(const write_partial& total, std::int64_t numel) {
  return {to_metrics(total.diff, numel), to_value_stats(total.before), to_value_stats(total.candidate)};
}

}  // namespace

measured_write cpu_write_measured(const at::Tensor& source, double scale, const at::Tensor& target) {
  return to_measured_write(write_checked<pass_mode::write_measured>(source, scale, target), target.numel());
}

void cpu_write(const at::Tensor& source, double scale, const at::Tensor& target) {
  write_checked<pass_mode::write>(source, scale, target);
}

measured_write cpu_measure_graft(const at::Tensor& candidate, const at::Tensor& target) {
  return to_measured_write(write_checked<pass_mode::measure>(candidate, 1.0, target), target.numel());
}

}  // namespace graft::detail
