// Bench case 7: the receive side on a CUDA device, timed with
// CUDA events (UseManualTime), each figure against a floor in the same run:
//   cuda_floor_copy           cudaMemcpyAsync device-to-device of the target's bytes
//   cuda_kernel_identity      graft's fused kernel, scale 1, result fetched to the host
//   cuda_kernel_double_fused  the same kernel with scale 2 (fused doubling)
//   cuda_floor_read           a plain read of both tensors (graft's read_both kernel)
//   cuda_kernel_metrics       graft's one-pass metrics kernel, result fetched
// and, when libtorch itself has CUDA, the recv path on CUDA tensors:
//   cuda_aten_floor_copy      ATen's copy_ (the floor)
//   cuda_aten_identity_graft  identity_by_rank, whose fused plan runs graft's
//                             kernel where the build has it in the recv path
//   cuda_aten_double_naive    a doubling without a plan (ATen ops, several passes)
//   cuda_aten_metrics         compare() (ATen ops)
// Counters: bytes (the target), bytes_rw (read + written), and the report
// derives GB/s and the fraction of the device copy's bandwidth. Without a
// device (or without the CUDA toolkit at build time) one case registers and
// skips with the reason.

#include <stdexcept>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_sizes.hpp"

#if GRAFT_BENCH_CUDA_KERNELS
#include <cuda_runtime_api.h>

#include <graft/metrics.hpp>
#include <graft/transform.hpp>

#include "cuda/graft_kernels.hpp"
#include "recv_setup.hpp"
#endif

namespace {

void register_skip(const std::string& reason) {
  benchmark::RegisterBenchmark("cuda_unavailable", [reason](benchmark::State& state) {
    for (auto _ : state) {
    }
    state.SkipWithError(reason.c_str());
  })->Iterations(1);
}

#if GRAFT_BENCH_CUDA_KERNELS

using graft_bench::dtype_case;

// CUDA-event timing on the legacy default stream, which libtorch also uses
// unless told otherwise.
class event_timer {
 public:
  event_timer() {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  template <typename Body>
  void run(benchmark::State& state, Body body) {
    for (auto _ : state) {
      cudaEventRecord(start_, nullptr);
      body();
      cudaEventRecord(stop_, nullptr);
      cudaEventSynchronize(stop_);
      float ms = 0;
      cudaEventElapsedTime(&ms, start_, stop_);
      state.SetIterationTime(static_cast<double>(ms) / 1e3);
    }
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

graft::cuda::dtype kernel_dtype(at::ScalarType t) {
  return t == at::kBFloat16 ? graft::cuda::dtype::bfloat16 : graft::cuda::dtype::float32;
}

// Two device buffers of `bytes`, filled with ordinary values.
struct device_pair {
  void* source = nullptr;
  void* target = nullptr;
  std::int64_t n = 0;

  device_pair(const dtype_case& d, std::int64_t bytes) {
    n = bytes / static_cast<std::int64_t>(c10::elementSize(d.type));
    const at::Tensor host_source = at::randn({n}).to(d.type);
    const at::Tensor host_target = at::randn({n}).to(d.type);
    cudaMalloc(&source, static_cast<std::size_t>(bytes));
    cudaMalloc(&target, static_cast<std::size_t>(bytes));
    cudaMemcpy(source, host_source.data_ptr(), static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice);
    cudaMemcpy(target, host_target.data_ptr(), static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice);
  }
  ~device_pair() {
    cudaFree(source);
    cudaFree(target);
  }
  device_pair(const device_pair&) = delete;
  device_pair& operator=(const device_pair&) = delete;
};

void check(benchmark::State& state, cudaError_t e) {
  if (e != cudaSuccess) state.SkipWithError(cudaGetErrorString(e));
}

template <typename Body>
void register_kernel_case(const std::string& variant, const dtype_case& d, std::int64_t bytes, int rw_factor,
                          Body body) {
  benchmark::RegisterBenchmark(
      graft_bench::case_name(variant, d, bytes).c_str(),
      [d, bytes, rw_factor, body](benchmark::State& state) {
        device_pair buffers(d, bytes);
        graft::cuda::workspace ws;
        check(state, ws.reserve());
        graft::cuda::graft_sums sums{};
        event_timer timer;
        cudaError_t status = cudaSuccess;
        timer.run(state, [&] {
          const cudaError_t e = body(buffers, d, ws, sums);
          if (status == cudaSuccess) status = e;
        });
        check(state, status);
        graft_bench::set_traffic(state, bytes, rw_factor * bytes);
      })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_kernel_cases() {
  using graft::cuda::graft_sums;
  using graft::cuda::workspace;
  for (const std::int64_t bytes : graft_bench::sizes()) {
    for (const dtype_case& d : graft_bench::dtypes()) {
      register_kernel_case("cuda_floor_copy", d, bytes, 2,
                           [bytes](device_pair& b, const dtype_case&, workspace&, graft_sums&) {
                             return cudaMemcpyAsync(b.target, b.source, static_cast<std::size_t>(bytes),
                                                    cudaMemcpyDeviceToDevice, nullptr);
                           });
      for (const double scale : {1.0, 2.0}) {
        register_kernel_case(scale == 1.0 ? "cuda_kernel_identity" : "cuda_kernel_double_fused", d, bytes, 3,
                             [scale](device_pair& b, const dtype_case& dc, workspace& ws, graft_sums& out) {
                               const graft::cuda::dtype t = kernel_dtype(dc.type);
                               if (const cudaError_t e =
                                       graft::cuda::fused_write_measure(b.source, t, b.target, t, b.n, scale, ws, nullptr);
                                   e != cudaSuccess) {
                                 return e;
                               }
                               return graft::cuda::fetch(ws, &out, nullptr);
                             });
      }
      register_kernel_case("cuda_floor_read", d, bytes, 2,
                           [](device_pair& b, const dtype_case& dc, workspace& ws, graft_sums&) {
                             return graft::cuda::read_both(b.target, b.source, kernel_dtype(dc.type), b.n, ws, nullptr);
                           });
      register_kernel_case("cuda_kernel_metrics", d, bytes, 2,
                           [](device_pair& b, const dtype_case& dc, workspace& ws, graft_sums& out) {
                             if (const cudaError_t e =
                                     graft::cuda::measure(b.target, b.source, kernel_dtype(dc.type), b.n, ws, nullptr);
                                 e != cudaSuccess) {
                               return e;
                             }
                             return graft::cuda::fetch(ws, &out, nullptr);
                           });
    }
  }
}

// The recv path on CUDA tensors, as graft runs it (see the list above).
using graft_bench::recv_setup;

template <typename Body>
void register_aten_case(const std::string& variant, const dtype_case& d, std::int64_t bytes, int rw_factor,
                        Body body) {
  benchmark::RegisterBenchmark(graft_bench::case_name(variant, d, bytes).c_str(),
                               [d, bytes, rw_factor, body](benchmark::State& state) {
                                 recv_setup setup(d, bytes, at::kCUDA);
                                 event_timer timer;
                                 try {
                                   timer.run(state, [&] { body(setup); });
                                 } catch (const std::exception& e) {
                                   state.SkipWithError(e.what());
                                   return;
                                 }
                                 graft_bench::set_traffic(state, bytes, rw_factor * bytes);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

void register_aten_cases() {
  static const graft::transform identity = graft::identity_by_rank();
  static const graft::transform& doubling = graft_bench::doubling(false);
  for (const std::int64_t bytes : graft_bench::sizes()) {
    for (const dtype_case& d : graft_bench::dtypes()) {
      register_aten_case("cuda_aten_floor_copy", d, bytes, 2, [](recv_setup& s) { s.target.copy_(s.source); });
      register_aten_case("cuda_aten_identity_graft", d, bytes, 3,
                         [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(identity, true)); });
      register_aten_case("cuda_aten_double_naive", d, bytes, 3,
                         [](recv_setup& s) { benchmark::DoNotOptimize(s.graft(doubling, true)); });
      register_aten_case("cuda_aten_metrics", d, bytes, 2,
                         [](recv_setup& s) { benchmark::DoNotOptimize(graft::compare(s.target, s.source)); });
    }
  }
}

void register_all() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    register_skip(std::string("no CUDA device: ") +
                  (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount returned 0"));
    return;
  }
  register_kernel_cases();
  if (at::hasCUDA() && at::getNumGPUs() > 0) {
    register_aten_cases();
  } else {
    register_skip("libtorch has no CUDA: the cuda_aten_* cases need a CUDA-enabled libtorch "
                  "(see ci/gpu-bench.sh)");
  }
}

#else

void register_all() {
  register_skip("built without the CUDA toolkit (no nvcc found): configure with CUDA to build graft's kernels");
}

#endif

}  // namespace

int main(int argc, char** argv) { return graft_bench::run_benchmarks(argc, argv, register_all); }
