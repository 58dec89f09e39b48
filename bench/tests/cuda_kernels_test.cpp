// graft's CUDA kernels: built in CI everywhere a CUDA compiler exists; run
// only where a device is present, against values computed on the host.

#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "graft_kernels.hpp"

namespace {

bool have_device(std::string* why) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess) *why = cudaGetErrorString(e);
  else if (devices == 0) *why = "cudaGetDeviceCount returned 0";
  return e == cudaSuccess && devices > 0;
}

TEST(cuda_kernels, fused_doubling_writes_and_measures) {
  std::string why;
  if (!have_device(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  const std::int64_t n = 100'003;  // a vector tail
  std::vector<float> source(n), target(n);
  for (std::int64_t i = 0; i < n; ++i) {
    source[i] = static_cast<float>((i % 97) - 48) * 0.25f;
    target[i] = static_cast<float>((i % 13) - 6);
  }
  double xx = 0, yy = 0, xy = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = target[i], b = 2.0 * source[i];
    xx += a * a;
    yy += b * b;
    xy += a * b;
  }
  void *d_source = nullptr, *d_target = nullptr;
  ASSERT_EQ(cudaMalloc(&d_source, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_target, n * sizeof(float)), cudaSuccess);
  cudaMemcpy(d_source, source.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_target, target.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  graft::cuda::workspace ws;
  ASSERT_EQ(ws.reserve(), cudaSuccess);
  ASSERT_EQ(graft::cuda::fused_write_measure(d_source, graft::cuda::dtype::float32, d_target,
                                             graft::cuda::dtype::float32, n, 2.0, ws, nullptr),
            cudaSuccess);
  graft::cuda::graft_sums sums{};
  ASSERT_EQ(graft::cuda::fetch(ws, &sums, nullptr), cudaSuccess);
  std::vector<float> written(n);
  cudaMemcpy(written.data(), d_target, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(written[i], 2.0f * source[i]) << i;
  EXPECT_NEAR(sums.sum_xx, xx, 1e-9 * xx);
  EXPECT_NEAR(sums.sum_yy, yy, 1e-9 * yy);
  EXPECT_NEAR(sums.sum_xy, xy, 1e-9 * std::abs(xy));
  EXPECT_EQ(sums.before.finite_count, n);
  EXPECT_EQ(sums.x_nan + sums.y_nan, 0);
  cudaFree(d_source);
  cudaFree(d_target);
}

}  // namespace
