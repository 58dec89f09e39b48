// graft's CUDA kernels: built in CI everywhere a CUDA compiler exists; run
// only where a device is present, against values computed on the host (the
// workspace check needs no device and runs everywhere).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "cuda/graft_kernels.hpp"

namespace {

using graft::cuda::dtype;
using graft::cuda::graft_sums;

bool have_device(std::string* why) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess) *why = cudaGetErrorString(e);
  else if (devices == 0) *why = "cudaGetDeviceCount returned 0";
  return e == cudaSuccess && devices > 0;
}

#define REQUIRE_DEVICE()                                            \
  do {                                                              \
    std::string why;                                                \
    if (!have_device(&why)) GTEST_SKIP() << "no CUDA device: " << why; \
  } while (false)

// A device copy of host values; `offset` elements of padding in front make
// the data pointer misaligned (the kernels' scalar loop).
template <typename T>
class device_values {
 public:
  explicit device_values(const std::vector<T>& host, std::size_t offset = 0) : offset_(offset), n_(host.size()) {
    EXPECT_EQ(cudaMalloc(&base_, (n_ + offset_) * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data(), host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~device_values() { cudaFree(base_); }
  device_values(const device_values&) = delete;
  device_values& operator=(const device_values&) = delete;

  T* data() const { return static_cast<T*>(base_) + offset_; }
  std::vector<T> to_host() const {
    std::vector<T> host(n_);
    EXPECT_EQ(cudaMemcpy(host.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }

 private:
  void* base_ = nullptr;
  std::size_t offset_;
  std::size_t n_;
};

// The diff sums of x and y as the kernels define them, summed on the host.
struct host_sums {
  double xx = 0, yy = 0, xy = 0, dd = 0, dx = 0, abs = 0;
};

host_sums sum_on_host(const std::vector<double>& x, const std::vector<double>& y) {
  host_sums s;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - y[i];
    s.xx += x[i] * x[i];
    s.yy += y[i] * y[i];
    s.xy += x[i] * y[i];
    s.dd += d * d;
    s.dx += d * x[i];
    s.abs += std::abs(d);
  }
  return s;
}

// The kernels add in another order than the host: the sums agree to rounding.
void expect_sums_near(const graft_sums& got, const host_sums& want) {
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(b), 1e-300); };
  EXPECT_TRUE(near(got.sum_xx, want.xx)) << got.sum_xx << " vs " << want.xx;
  EXPECT_TRUE(near(got.sum_yy, want.yy)) << got.sum_yy << " vs " << want.yy;
  EXPECT_TRUE(near(got.sum_xy, want.xy)) << got.sum_xy << " vs " << want.xy;
  EXPECT_TRUE(near(got.sum_dd, want.dd)) << got.sum_dd << " vs " << want.dd;
  EXPECT_TRUE(near(got.sum_dx, want.dx)) << got.sum_dx << " vs " << want.dx;
  EXPECT_TRUE(near(got.sum_abs, want.abs)) << got.sum_abs << " vs " << want.abs;
}

// bfloat16 bits <-> float on the host (round to nearest even; no NaNs here).
float bf16_value(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>((u + (((u >> 16) & 1u) + 0x7FFFu)) >> 16);
}

graft_sums fused(const void* source, dtype source_type, void* target, dtype target_type, std::int64_t n,
                 double scale) {
  graft::cuda::workspace ws;
  EXPECT_EQ(ws.reserve(), cudaSuccess);
  EXPECT_EQ(graft::cuda::fused_write_measure(source, source_type, target, target_type, n, scale, ws, nullptr),
            cudaSuccess);
  graft_sums sums{};
  EXPECT_EQ(graft::cuda::fetch(ws, &sums, nullptr), cudaSuccess);
  return sums;
}

graft_sums measured(const void* x, const void* y, dtype type, std::int64_t n) {
  graft::cuda::workspace ws;
  EXPECT_EQ(ws.reserve(), cudaSuccess);
  EXPECT_EQ(graft::cuda::measure(x, y, type, n, ws, nullptr), cudaSuccess);
  graft_sums sums{};
  EXPECT_EQ(graft::cuda::fetch(ws, &sums, nullptr), cudaSuccess);
  return sums;
}

// Checked before anything reaches the device: runs on every machine.
TEST(cuda_kernels, rejects_an_unreserved_workspace) {
  graft::cuda::workspace unreserved;
  float value = 1.0f;
  EXPECT_EQ(graft::cuda::fused_write_measure(&value, dtype::float32, &value, dtype::float32, 1, 2.0, unreserved,
                                             nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(graft::cuda::measure(&value, &value, dtype::float32, 1, unreserved, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(graft::cuda::read_both(&value, &value, dtype::float32, 1, unreserved, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(value, 1.0f);
}

TEST(cuda_kernels, rejects_empty_ranges) {
  REQUIRE_DEVICE();
  float value = 1.0f;
  graft::cuda::workspace ws;
  ASSERT_EQ(ws.reserve(), cudaSuccess);
  EXPECT_EQ(graft::cuda::measure(&value, &value, dtype::float32, 0, ws, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(graft::cuda::fused_write_measure(&value, dtype::float32, &value, dtype::float32, -1, 1.0, ws, nullptr),
            cudaErrorInvalidValue);
}

TEST(cuda_kernels, fused_doubling_writes_and_measures) {
  REQUIRE_DEVICE();
  const std::int64_t n = 100'003;  // a vector tail
  std::vector<float> source(n), target(n);
  for (std::int64_t i = 0; i < n; ++i) {
    source[i] = static_cast<float>((i % 97) - 48) * 0.25f;
    target[i] = static_cast<float>((i % 13) - 6);
  }
  device_values<float> d_source(source), d_target(target);
  const graft_sums sums = fused(d_source.data(), dtype::float32, d_target.data(), dtype::float32, n, 2.0);
  const std::vector<float> written = d_target.to_host();
  std::vector<double> before(n), after(n);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(written[i], 2.0f * source[i]) << i;
    before[i] = target[i];
    after[i] = written[i];
  }
  expect_sums_near(sums, sum_on_host(before, after));
  EXPECT_EQ(sums.before.finite_count, n);
  EXPECT_EQ(sums.candidate.finite_count, n);
  EXPECT_EQ(sums.x_nan + sums.y_nan + sums.x_inf + sums.y_inf, 0);
}

// A misaligned pointer takes the scalar loop: the same values and sums.
TEST(cuda_kernels, misaligned_identity_copies_exactly) {
  REQUIRE_DEVICE();
  const std::int64_t n = 4'099;
  std::vector<float> source(n), target(n, 0.5f);
  for (std::int64_t i = 0; i < n; ++i) source[i] = std::ldexp(static_cast<float>(i % 31) - 15.0f, -(i % 7));
  device_values<float> d_source(source, 1), d_target(target, 3);
  const graft_sums sums = fused(d_source.data(), dtype::float32, d_target.data(), dtype::float32, n, 1.0);
  const std::vector<float> written = d_target.to_host();
  std::vector<double> before(target.begin(), target.end()), after(n);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::memcmp(&written[i], &source[i], sizeof(float)), 0) << i;
    after[i] = written[i];
  }
  expect_sums_near(sums, sum_on_host(before, after));
}

// Doubling a bfloat16 is exact (well inside its range): twice each value,
// rounded in the source dtype, then written.
TEST(cuda_kernels, bfloat16_doubling_matches_the_host) {
  REQUIRE_DEVICE();
  const std::int64_t n = 70'001;
  std::vector<std::uint16_t> source(n), target(n);
  for (std::int64_t i = 0; i < n; ++i) {
    source[i] = bf16_bits(static_cast<float>((i * 7919) % 2001 - 1000) / 64.0f);
    target[i] = bf16_bits(static_cast<float>(i % 5) - 2.0f);
  }
  device_values<std::uint16_t> d_source(source), d_target(target);
  const graft_sums sums = fused(d_source.data(), dtype::bfloat16, d_target.data(), dtype::bfloat16, n, 2.0);
  const std::vector<std::uint16_t> written = d_target.to_host();
  std::vector<double> before(n), after(n);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(written[i], bf16_bits(2.0f * bf16_value(source[i]))) << i;
    before[i] = bf16_value(target[i]);
    after[i] = bf16_value(written[i]);
  }
  expect_sums_near(sums, sum_on_host(before, after));
  EXPECT_DOUBLE_EQ(sums.candidate.min, 2.0 * (-1000.0 / 64.0));
  EXPECT_DOUBLE_EQ(sums.candidate.max, 2.0 * (1000.0 / 64.0));
}

// float32 into bfloat16: the candidate stays float32, the write rounds it.
TEST(cuda_kernels, converts_float32_into_a_bfloat16_target) {
  REQUIRE_DEVICE();
  const std::int64_t n = 10'007;
  std::vector<float> source(n);
  std::vector<std::uint16_t> target(n, bf16_bits(1.0f));
  for (std::int64_t i = 0; i < n; ++i) source[i] = 1.0f + static_cast<float>(i) * 1e-4f;
  device_values<float> d_source(source);
  device_values<std::uint16_t> d_target(target);
  const graft_sums sums = fused(d_source.data(), dtype::float32, d_target.data(), dtype::bfloat16, n, 1.0);
  const std::vector<std::uint16_t> written = d_target.to_host();
  double candidate_sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(written[i], bf16_bits(source[i])) << i;
    candidate_sum += source[i];
  }
  EXPECT_NEAR(sums.candidate.sum, candidate_sum, 1e-9 * candidate_sum);
  EXPECT_DOUBLE_EQ(sums.candidate.max, static_cast<double>(source[n - 1]));
}

// The write without measuring writes what the measured one writes, and
// float64 doubles exactly.
TEST(cuda_kernels, unmeasured_write_matches_the_measured_one) {
  REQUIRE_DEVICE();
  const std::int64_t n = 30'011;
  std::vector<double> source(n), target(n, 3.0);
  for (std::int64_t i = 0; i < n; ++i) source[i] = std::ldexp(static_cast<double>(i % 101) - 50.0, -(i % 9));
  device_values<double> d_source(source), measured_target(target), unmeasured_target(target);
  fused(d_source.data(), dtype::float64, measured_target.data(), dtype::float64, n, 2.0);
  ASSERT_EQ(graft::cuda::fused_write(d_source.data(), dtype::float64, unmeasured_target.data(), dtype::float64, n,
                                     2.0, nullptr),
            cudaSuccess);
  const std::vector<double> measured_values = measured_target.to_host();
  const std::vector<double> unmeasured_values = unmeasured_target.to_host();
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(measured_values[i], 2.0 * source[i]) << i;
    ASSERT_EQ(unmeasured_values[i], measured_values[i]) << i;
  }
}

// NaN and Inf are counted per side and left out of min/max/sum; a NaN
// difference makes max_abs NaN at the first NaN's index.
TEST(cuda_kernels, measure_counts_nan_and_inf) {
  REQUIRE_DEVICE();
  const std::int64_t n = 50'000;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(n, 1.0f), y(n, 1.0f);
  x[40'000] = nan;
  x[12'345] = nan;
  y[777] = inf;
  y[30'000] = -inf;
  y[49'999] = nan;
  device_values<float> d_x(x), d_y(y);
  const graft_sums sums = measured(d_x.data(), d_y.data(), dtype::float32, n);
  EXPECT_EQ(sums.x_nan, 2);
  EXPECT_EQ(sums.x_inf, 0);
  EXPECT_EQ(sums.y_nan, 1);
  EXPECT_EQ(sums.y_inf, 2);
  EXPECT_TRUE(std::isnan(sums.max_abs));
  EXPECT_EQ(sums.max_abs_index, 12'345);  // 1 - inf at 777 is Inf, not NaN
  EXPECT_EQ(sums.before.finite_count, n - 2);
  EXPECT_EQ(sums.candidate.finite_count, n - 3);
  EXPECT_DOUBLE_EQ(sums.candidate.sum, static_cast<double>(n - 3));
}

// Equal largest differences far apart: the first index wins, whichever
// thread or block saw it.
TEST(cuda_kernels, max_abs_index_is_the_first_occurrence) {
  REQUIRE_DEVICE();
  const std::int64_t n = 3'000'001;
  std::vector<float> x(n, 0.0f), y(n, 0.0f);
  for (const std::int64_t i : {2'999'000LL, 1'500'017LL, 65'541LL, 524'291LL}) y[i] = 8.0f;
  y[1'000] = -7.5f;
  device_values<float> d_x(x), d_y(y);
  const graft_sums sums = measured(d_x.data(), d_y.data(), dtype::float32, n);
  EXPECT_EQ(sums.max_abs, 8.0);
  EXPECT_EQ(sums.max_abs_index, 65'541);
  EXPECT_EQ(sums.sum_abs, 4 * 8.0 + 7.5);
}

// Sums over float64 in a fixed launch shape repeat bit for bit.
TEST(cuda_kernels, repeated_measures_agree_bit_for_bit) {
  REQUIRE_DEVICE();
  const std::int64_t n = 1'000'003;
  std::vector<float> x(n), y(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = std::sin(static_cast<float>(i));
    y[i] = x[i] + 1e-3f * std::cos(static_cast<float>(i) * 0.5f);
  }
  device_values<float> d_x(x), d_y(y);
  const graft_sums first = measured(d_x.data(), d_y.data(), dtype::float32, n);
  const graft_sums second = measured(d_x.data(), d_y.data(), dtype::float32, n);
  EXPECT_EQ(std::memcmp(&first, &second, sizeof first), 0);
  std::vector<double> xd(x.begin(), x.end()), yd(y.begin(), y.end());
  expect_sums_near(first, sum_on_host(xd, yd));
}

}  // namespace
