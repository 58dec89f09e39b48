// cpu_pass_threads(): the threads chunked_reduce (chunked.hpp) really gets.
// It lives in this component, built as the passes are (with OpenMP where
// libtorch uses it): at::parallel_for is inline, so only code compiled that
// way reaches libtorch's threads.

#include <algorithm>
#include <cstdint>
#include <vector>

#include <ATen/Parallel.h>

#include <graft/metrics.hpp>

namespace graft {

int cpu_pass_threads() {
  const std::int64_t threads = at::get_num_threads();
  std::vector<char> ran(static_cast<std::size_t>(threads), 0);
  // One task per thread, as chunked_reduce gives one per chunk (grain 1).
  at::parallel_for(0, threads, 1, [&](std::int64_t, std::int64_t) {
    const std::int64_t id = std::clamp<std::int64_t>(at::get_thread_num(), 0, threads - 1);
    ran[static_cast<std::size_t>(id)] = 1;
  });
  return static_cast<int>(std::count(ran.begin(), ran.end(), 1));
}

}  // namespace graft
