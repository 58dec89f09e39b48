// The cost of a dump point that grafts nothing (bench cases 1-2):
// a disabled grafter, and an enabled one whose two filters do not
// match a call with five tags, each against an empty call measured in the
// same run (the floor):
//   intercept_floor_empty  a non-inlined call taking the same arguments
//   intercept_disabled     maybe_intercept on a disabled grafter
//   intercept_no_match     maybe_intercept, enabled, no filter matches
#include <benchmark/benchmark.h>

#include <ATen/ATen.h>

#include <graft/grafter.hpp>

#include "bench_main.hpp"

namespace {

// The floor: a call that takes the same arguments and does nothing.
__attribute__((noinline)) void empty_call(const at::Tensor& value, const graft::tags& t) {
  benchmark::DoNotOptimize(&value);
  benchmark::DoNotOptimize(&t);
}

const graft::tags& five_tags() {
  static const graft::tags t{{"name", "mlp_output"}, {"layer_id", 7}, {"graft_phase", "prefill"},
                             {"recompute_status", "disabled"}, {"step", 3}};
  return t;
}

graft::graft_config enabled_config() {
  graft::graft_config c;
  c.enable = true;
  c.side = graft::role::target;
  c.c10d.master_address = "127.0.0.1";
  c.c10d.master_port = 29500;
  c.baseline_world_size = c.target_world_size = 1;
  c.b2t_filter = R"(name in ("layer_input", "attn_output") and graft_phase == "prefill")";
  c.t2b_filter = "search(r'^hc_', name) is not None and layer_id < 3";
  return c;
}

void intercept_floor_empty(benchmark::State& state) {
  const at::Tensor value = at::zeros({4});
  for (auto _ : state) empty_call(value, five_tags());
}
BENCHMARK(intercept_floor_empty);

void intercept_disabled(benchmark::State& state) {
  graft::grafter g(graft::graft_config{}, {0, 1});
  const at::Tensor value = at::zeros({4});
  for (auto _ : state) {
    g.maybe_intercept(value, five_tags());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(intercept_disabled);

void intercept_no_match(benchmark::State& state) {
  graft::grafter g(enabled_config(), {0, 1});
  const at::Tensor value = at::zeros({4});
  for (auto _ : state) {
    g.maybe_intercept(value, five_tags());
    benchmark::ClobberMemory();
  }
  if (g.has_group()) state.SkipWithError("a non-matching call created a group");
}
BENCHMARK(intercept_no_match);

}  // namespace

int main(int argc, char** argv) {
  return graft_bench::run_benchmarks(argc, argv, [] {});  // cases register statically (BENCHMARK)
}
