#pragma once
// The main() of a benchmark whose cases are registered at run time.

#include <iostream>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include <graft/metrics.hpp>
#include <graft/version.hpp>

namespace graft_bench {

// Registers the cases, then runs Google Benchmark with the command line.
// A setting the cases cannot be registered with (GRAFT_BENCH_MAX_MIB=abc) is
// bad input: exit 2 with its message, before anything runs.
template <typename Register>
int run_benchmarks(int argc, char** argv, Register register_cases) {
  try {
    register_cases();
  } catch (const std::invalid_argument& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 2;
  }
  // Conditions the figures depend on, for the report and compare: which
  // graft, the CPU passes spread over these threads, and graft's build type
  // (Google Benchmark's library_build_type is its own library's).
  benchmark::AddCustomContext("graft_version", graft::version());
  benchmark::AddCustomContext("graft_cpu_pass_threads", std::to_string(graft::cpu_pass_threads()));
  const std::string build_type = GRAFT_BUILD_TYPE;
  benchmark::AddCustomContext("graft_build_type", build_type.empty() ? "none" : build_type);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace graft_bench
