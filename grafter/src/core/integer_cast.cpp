#include "core/integer_cast.hpp"

#include <cstdint>
#include <limits>

#include <ATen/ATen.h>

#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>

namespace graft::detail {
namespace {

struct integer_range {
  std::int64_t lowest;
  std::int64_t highest;
};

template <typename T>
integer_range range_of() {
  return {static_cast<std::int64_t>(std::numeric_limits<T>::lowest()),
          static_cast<std::int64_t>(std::numeric_limits<T>::max())};
}

std::optional<integer_range> integer_range_of(at::ScalarType type) {
  switch (type) {
    case at::kByte: return range_of<std::uint8_t>();
    case at::kChar: return range_of<std::int8_t>();
    case at::kShort: return range_of<std::int16_t>();
    case at::kInt: return range_of<std::int32_t>();
    case at::kLong: return range_of<std::int64_t>();
    default: return std::nullopt;
  }
}

std::string range_text(const std::string& to, const integer_range& range) {
  return to + "'s range [" + std::to_string(range.lowest) + ", " +
         std::to_string(range.highest) + "]";
}

// A floating value casts (truncating toward zero) into [lowest, highest] when
// it lies strictly between lowest - 1 and highest + 1. Both bounds are powers
// of two (or one less), so lowest - 1 and highest + 1 are exact as doubles.
std::optional<std::string> floating_problem(const at::Tensor& candidate, const std::string& to,
                                            const integer_range& range) {
  const at::Tensor values = candidate.to(at::kDouble);
  const std::int64_t non_finite = values.isfinite().logical_not().sum().item<std::int64_t>();
  if (non_finite > 0) {
    return std::to_string(non_finite) + " NaN or infinite value" + (non_finite == 1 ? "" : "s") +
           ", which no cast to " + to + " defines";
  }
  const double below = static_cast<double>(range.lowest) - 1.0;
  const double above = static_cast<double>(range.highest) + 1.0;
  const double min = values.min().item<double>();
  const double max = values.max().item<double>();
  if (min > below && max < above) return std::nullopt;
  return "values from " + format_g6(min) + " to " + format_g6(max) + ", beyond " + range_text(to, range);
}

}  // namespace

std::optional<std::string> integer_cast_problem(const at::Tensor& candidate, const at::Tensor& target) {
  const std::optional<integer_range> range = integer_range_of(target.scalar_type());
  if (!range || candidate.scalar_type() == target.scalar_type() || candidate.numel() == 0 ||
      candidate.is_complex() || candidate.scalar_type() == at::kBool) {
    return std::nullopt;
  }
  const std::string to = dtype_name(target);
  if (at::isFloatingType(candidate.scalar_type())) return floating_problem(candidate, to, *range);
  const std::int64_t min = candidate.min().item<std::int64_t>();
  const std::int64_t max = candidate.max().item<std::int64_t>();
  if (min >= range->lowest && max <= range->highest) return std::nullopt;
  return "values from " + std::to_string(min) + " to " + std::to_string(max) + ", beyond " + range_text(to, *range);
}

}  // namespace graft::detail
