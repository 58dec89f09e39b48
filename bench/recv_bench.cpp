// The receive side of a graft without transport, against the memory floor
// measured in the same run (bench cases 3-5):
//   recv_floor_copy             target.copy_(source), their bytes as float32: the
//                               least a graft must do
//   recv_identity_graft         the recv path with identity_by_rank, measure=off:
//                               validate + one writing pass
//   recv_identity_event         ... and the event's fields built from its
//                               outcome: what logging the graft adds
//   recv_identity_measured      the same with measure=full (the default): the
//                               pass also takes both sides' statistics and the
//                               diff metrics, reading the target's old values
//   recv_identity_legacy        describe x2 + compare + copy_: what measuring
//                               costs without the fused pass
//   recv_double_naive           a doubling transform without a plan: a
//                               temporary, then the writing pass (measure=off)
//   recv_double_fused           the same transform with its fused plan
//   recv_double_fused_without_avx512bf16
//                               recv_double_fused (bfloat16) as a CPU without
//                               AVX512_BF16 runs it, on any CPU
//   recv_double_fused_measured  ... and measure=full
//   metrics_floor_read          one plain read of both tensors (their bytes summed as float32)
//   metrics_pass                compare(): every diff metric in one pass
//   recv_identity_compare       the recv path of a compare-only name: metrics and both
//                               sides' statistics in one pass, nothing written
// Each name is <variant>/<dtype>/<target bytes>; the report divides a
// variant's time by its floor's at the same dtype and size.

#include <string>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>
#include <graft/transform.hpp>

#include "bench_main.hpp"
#include "bench_sizes.hpp"
#include "recv_setup.hpp"
#include "stats/bf16_rounding.hpp"

namespace {

using graft_bench::dtype_case;

using graft_bench::doubling;
using graft_bench::recv_setup;

// Allows or forbids AVX512_BF16's rounding for as long as it lives.
class bf16_instruction_scope {
 public:
  explicit bf16_instruction_scope(bool allowed) : previous_(graft::detail::allow_bf16_rounding(allowed)) {}
  ~bf16_instruction_scope() { graft::detail::allow_bf16_rounding(previous_); }
  bf16_instruction_scope(const bf16_instruction_scope&) = delete;
  bf16_instruction_scope& operator=(const bf16_instruction_scope&) = delete;

 private:
  bool previous_;
};

// bf16_instruction false: the passes run as on a CPU without AVX512_BF16.
template <typename Body>
void register_case(const std::string& variant, const dtype_case& d, std::int64_t bytes, int rw_factor,
                   Body body, bool bf16_instruction = true) {
  benchmark::RegisterBenchmark(graft_bench::case_name(variant, d, bytes).c_str(),
                               [d, bytes, rw_factor, body, bf16_instruction](benchmark::State& state) {
                                 recv_setup setup(d, bytes, at::kCPU);
                                 const bf16_instruction_scope instruction(bf16_instruction);
                                 try {
                                   for (auto _ : state) body(setup);
                                 } catch (const std::exception& e) {
                                   state.SkipWithError(e.what());
                                   return;
                                 }
                                 graft_bench::set_traffic(state, bytes, rw_factor * bytes);
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_all() {
  for (const std::int64_t bytes : graft_bench::sizes()) {
    for (const dtype_case& d : graft_bench::cpu_dtypes()) {
      // The bytes copied as float32, for every dtype: libtorch 1.13 copies
      // float16 into float16 at a fifth of float32's speed, no floor for it.
      register_case("recv_floor_copy", d, bytes, 2,
                    [](recv_setup& s) { s.target.view(at::kFloat).copy_(s.source.view(at::kFloat)); });
      register_case("recv_identity_graft", d, bytes, 2, [identity = graft::identity_by_rank()](recv_setup& s) {
        benchmark::DoNotOptimize(s.graft(identity, false));
      });
      register_case("recv_identity_event", d, bytes, 2, [identity = graft::identity_by_rank()](recv_setup& s) {
        benchmark::DoNotOptimize(s.graft(identity, false).fields());
      });
      register_case("recv_identity_measured", d, bytes, 3, [identity = graft::identity_by_rank()](recv_setup& s) {
        benchmark::DoNotOptimize(s.graft(identity, true));
      });
      register_case("recv_identity_legacy", d, bytes, 3, [](recv_setup& s) {
        benchmark::DoNotOptimize(graft::describe(s.target));
        benchmark::DoNotOptimize(graft::describe(s.source));
        benchmark::DoNotOptimize(graft::compare(s.target, s.source));
        s.target.copy_(s.source);
      });
      register_case("recv_double_naive", d, bytes, 2,
                    [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(doubling(false), false)); });
      register_case("recv_double_fused", d, bytes, 2,
                    [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(doubling(true), false)); });
      if (d.type == at::kBFloat16) {
        register_case(
            "recv_double_fused_without_avx512bf16", d, bytes, 2,
            [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(doubling(true), false)); }, false);
      }
      register_case("recv_double_fused_measured", d, bytes, 3,
                    [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(doubling(true), true)); });
      // Every dtype's bytes read as float32, through ATen's vectorised float32
      // sum: the same read for every dtype. A sum in the dtype itself is no
      // floor for float16 (libtorch 1.13 sums it at 1.4 ms per MiB, 4x graft's
      // own compare()) and flattered bfloat16's ratio twofold.
      register_case("metrics_floor_read", d, bytes, 2, [](recv_setup& s) {
        benchmark::DoNotOptimize(s.source.view(at::kFloat).sum());
        benchmark::DoNotOptimize(s.target.view(at::kFloat).sum());
      });
      register_case("metrics_pass", d, bytes, 2,
                    [](recv_setup& s) { benchmark::DoNotOptimize(graft::compare(s.target, s.source)); });
      register_case("recv_identity_compare", d, bytes, 2, [identity = graft::identity_by_rank()](recv_setup& s) {
        benchmark::DoNotOptimize(s.graft(identity, true, false));
      });
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return graft_bench::run_benchmarks(argc, argv, register_all); }
