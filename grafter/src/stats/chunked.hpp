#pragma once
// A deterministic parallel reduction for the CPU passes of this component.
//
// The range is cut into fixed chunks of kChunk elements whatever the thread
// count; each chunk's partial lands in its own slot and the slots are folded
// in chunk order, so a result is bit for bit the same from run to run and
// from one thread count to another.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

namespace graft::detail {

inline constexpr std::int64_t kChunk = std::int64_t{1} << 15;

// partial(begin, end) reduces [begin, end); combine(into, next) folds the
// partial of the following chunk into the running one.
template <typename Partial, typename PartialFn, typename CombineFn>
Partial chunked_reduce(std::int64_t n, PartialFn partial, CombineFn combine) {
  const std::int64_t chunks = std::max<std::int64_t>(1, (n + kChunk - 1) / kChunk);
  std::vector<Partial> partials(static_cast<std::size_t>(chunks));
  at::parallel_for(0, chunks, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t c = first; c < last; ++c) {
      partials[static_cast<std::size_t>(c)] =
          partial(c * kChunk, std::min(n, (c + 1) * kChunk));
    }
  });
  Partial total = partials.front();
  for (std::size_t c = 1; c < partials.size(); ++c) combine(total, partials[c]);
  return total;
}

// Integers and bool are always finite: their loops skip the NaN/Inf tests.
template <typename T>
inline constexpr bool kMayBeNonFinite =
    std::is_floating_point_v<T> || std::is_same_v<T, c10::Half> ||
    std::is_same_v<T, c10::BFloat16>;

}  // namespace graft::detail
