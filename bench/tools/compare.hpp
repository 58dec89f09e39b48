#pragma once
// compare BASE NEW: flags regressions between two bench runs. Each benchmark
// is compared by its ratio to its floor from the same run when it has one
// (robust to a slower or busier machine), else by its median time. A change
// beyond the threshold is a regression only when it also exceeds twice the
// combined noise (cv) of both runs; otherwise it is "too noisy to tell".
// Runs whose conditions differ (CPU pass threads, graft's build type, CPU
// count) get a note saying so.

#include <ostream>
#include <string>

namespace graft_bench {

struct compare_options {
  double threshold = 0.10;  // relative change of the median ratio
};

// Writes a markdown table to out. Returns 1 when a regression is found, else 0.
// Throws bad_input for unreadable or malformed files.
int compare_runs(const std::string& base_path, const std::string& new_path, const compare_options& options,
                 std::ostream& out);

}  // namespace graft_bench
