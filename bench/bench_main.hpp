#pragma once
// The main() of a benchmark whose cases are registered at run time.

#include <string>

#include <benchmark/benchmark.h>

#include <graft/metrics.hpp>

namespace graft_bench {

// Registers the cases, then runs Google Benchmark with the command line.
template <typename Register>
int run_benchmarks(int argc, char** argv, Register register_cases) {
  register_cases();
  // Ratios of the CPU passes depend on it: they spread over these threads.
  benchmark::AddCustomContext("graft_cpu_pass_threads", std::to_string(graft::cpu_pass_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace graft_bench
