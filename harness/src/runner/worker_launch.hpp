#pragma once
// How the runner starts one rank's worker: its command line (the C++
// graft_worker, or the Python scenario worker with its plan file) and its
// environment.

#include <string>
#include <vector>

#include <graft/harness/runner.hpp>
#include <graft/harness/worker_protocol.hpp>

namespace graft::harness {

// The ports a scenario's processes meet at: the graft world's, and for the
// Python workers each side's own default group.
struct scenario_ports {
  int graft = 0;
  int baseline_side = 0;
  int target_side = 0;
};

// The worker's argv; for a Python worker, writes its plan (f.plan()) first.
// Throws graft::error when the plan cannot be written.
std::vector<std::string> worker_argv(const scenario& s, const runner_options& options, const worker_files& f,
                                     const scenario_ports& ports);

// The runner's environment, less what would change what a scenario runs,
// plus the Python package's folder in PYTHONPATH for the Python workers and
// NCCL's blocking wait for an NCCL scenario.
std::vector<std::string> worker_environment(const runner_options& options, bool nccl);

}  // namespace graft::harness
