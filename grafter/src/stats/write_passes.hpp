#pragma once
// What the fused receive pass (write_measure.hpp) hands between its parts: a
// range's partial results, and the per-source-dtype entry points, each
// compiled in its own file (write_from_*.cpp) so that the dtype pairs' loops
// build in parallel.

#include <ATen/core/Tensor.h>

#include "stats/partials.hpp"

namespace graft::detail {

// What a pass over source and target does: write the candidates, write and
// measure them, or only measure what writing them would do (the target is
// then only read).
enum class pass_mode { write, write_measured, measure };

struct write_partial {
  diff_partial diff;
  stats_partial before, candidate;
};

// The pass over a Src source into a target of any of the fused pass's dtypes
// (has_write_measure_loop), the operands already checked.
template <typename Src, pass_mode kMode>
write_partial write_from(const at::Tensor& source, double scale, const at::Tensor& target);

// Instantiates write_from for Src in every mode; one write_from_*.cpp each.
#define GRAFT_WRITE_FROM(Src)                                                                          \
  template write_partial write_from<Src, pass_mode::write>(const at::Tensor&, double, const at::Tensor&); \
  template write_partial write_from<Src, pass_mode::write_measured>(const at::Tensor&, double,             \
                                                                     const at::Tensor&);                    \
  template write_partial write_from<Src, pass_mode::measure>(const at::Tensor&, double, const at::Tensor&)

}  // namespace graft::detail
