// The recv path's fused branch on a CUDA device (graft's own kernel) against
// the same graft on the CPU: the target's bits, and the event's statistics
// and metrics within the sums' rounding. Needs a GPU (label gpu) and a build
// with the kernel in the recv path; skips with the reason otherwise.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <gtest/gtest.h>
#ifdef GRAFT_WITH_CUDA_KERNELS
#include <cuda_runtime_api.h>
#endif

#include <graft/transform.hpp>

#include <graft_test/tensor_checks.hpp>

#include "core/one_pass_device.hpp"
#include "core/recv_guard.hpp"

namespace graft {
namespace {

using graft_test::byte_checksum;

class cuda_recv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA device: at::hasCUDA() is false";
    // A machine with a device is where these tests must run: kernels left
    // out of the build are a failure there, not a reason to check nothing.
    if (!detail::cuda_kernels_built()) {
      FAIL() << "a CUDA device is visible, but graft was built without its CUDA kernel in the recv path "
                "(that needs a CUDA compiler and a libtorch with CUDA: ci/gpu-check.sh builds one)";
    }
  }
};

// A transform whose fused plan takes sender 0 times scale; fn counts its calls
// (the fused path never makes one).
struct planned {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  transform chosen;
  explicit planned(double scale)
      : chosen{scale == 1.0 ? "identity" : "scaled",
               [scale, calls = calls](const graft_transform_input& in) {
                 ++*calls;
                 const at::Tensor& s = in.received_list.at(0);
                 return scale == 1.0 ? s : s * scale;
               },
               [scale](const graft_transform_input&) { return std::optional<fused_plan>(fused_plan{0, scale}); }} {}
};

detail::recv_outcome graft_into(const transform& chosen, const at::Tensor& source, const at::Tensor& target,
                                bool measure = true, bool write = true) {
  static const tags call_tags{{"name", "x"}};
  static const std::string no_problem;
  rank_layout layout;
  layout.side = role::target;
  received incoming;
  incoming.sender_ranks = {0};
  incoming.tensors = {source};
  incoming.extras = {nullptr};
  return detail::graft_received(
      {call_tags, direction::b2t, layout, target, std::move(incoming), &chosen, no_problem, measure, write});
}

at::Tensor sample(at::ScalarType type, std::int64_t n, int seed) {
  at::manual_seed(seed);
  return (at::randn({n}, at::kDouble) * 3).to(type);
}

// NaN and Inf of both signs at fixed places.
at::Tensor with_specials(at::Tensor t, std::int64_t shift) {
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {std::nan(""), inf, -inf, -std::nan("")};
  for (int k = 0; k < 4; ++k) t[(1'000 * (k + 1) + shift) % t.numel()].fill_(values[k]);
  return t;
}

// The CPU pass sums float64 in 8 lanes of about n/8 terms each, then folds
// lanes and chunks: at most about n/8 + 64 roundings of 2^-53, relative to the
// sum of the terms' magnitudes; the kernel's chains (a few terms per thread,
// then trees) round far less. float32 and bfloat16 diffs sum in float32
// blocks on the CPU instead, within 2e-6 of the same (graft/metrics.hpp).
double relative_tolerance(std::int64_t n, bool float_blocks) {
  const double float64_chains = (static_cast<double>(n) / 8 + 64) * std::ldexp(1.0, -53);
  return float_blocks ? 2e-6 + float64_chains : float64_chains;
}

void expect_near(double gpu, double cpu, double magnitude, double tolerance, const char* what) {
  if (!std::isfinite(cpu) || !std::isfinite(gpu)) {
    EXPECT_TRUE((std::isnan(cpu) && std::isnan(gpu)) || cpu == gpu) << what << ": " << gpu << " vs " << cpu;
    return;
  }
  EXPECT_LE(std::abs(gpu - cpu), tolerance * magnitude) << what << ": " << gpu << " vs " << cpu;
}

double abs_sum(const at::Tensor& t) { return t.abs().nan_to_num(0, 0, 0).sum().item<double>(); }

void expect_same_info(const tensor_info& gpu, const tensor_info& cpu, const at::Tensor& values, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(gpu.shape, cpu.shape);
  EXPECT_EQ(gpu.stride, cpu.stride);
  EXPECT_EQ(gpu.dtype, cpu.dtype);
  EXPECT_EQ(gpu.measured, cpu.measured);
  EXPECT_EQ(gpu.nan_count, cpu.nan_count);
  EXPECT_EQ(gpu.inf_count, cpu.inf_count);
  EXPECT_EQ(gpu.min, cpu.min);
  EXPECT_EQ(gpu.max, cpu.max);
  ASSERT_EQ(gpu.mean.has_value(), cpu.mean.has_value());
  if (cpu.mean) {
    // The value statistics sum in float64 on both sides.
    const at::Tensor v = values.to(at::kDouble);
    const double finite = at::isfinite(v).sum().item<double>();
    expect_near(*gpu.mean, *cpu.mean, abs_sum(v) / finite, relative_tolerance(v.numel(), false), "mean");
  }
}

// x: the target before, y: the values the graft writes, both on the CPU.
void expect_same_metrics(const diff_metrics& gpu, const diff_metrics& cpu, const at::Tensor& x_values,
                         const at::Tensor& y_values) {
  EXPECT_EQ(gpu.outcome, cpu.outcome);
  EXPECT_EQ(gpu.numel, cpu.numel);
  EXPECT_EQ(gpu.x_nan, cpu.x_nan);
  EXPECT_EQ(gpu.x_inf, cpu.x_inf);
  EXPECT_EQ(gpu.y_nan, cpu.y_nan);
  EXPECT_EQ(gpu.y_inf, cpu.y_inf);
  // The same differences, so the same largest one at the same first index.
  EXPECT_TRUE(gpu.max_abs == cpu.max_abs || (std::isnan(gpu.max_abs) && std::isnan(cpu.max_abs)))
      << gpu.max_abs << " vs " << cpu.max_abs;
  EXPECT_EQ(gpu.max_abs_index, cpu.max_abs_index);

  const at::ScalarType type = x_values.scalar_type();
  const bool float_blocks = type == at::kFloat || type == at::kBFloat16;
  const at::Tensor x = x_values.to(at::kDouble);
  const at::Tensor y = y_values.to(at::kDouble);
  const at::Tensor d = float_blocks ? (x_values.to(at::kFloat) - y_values.to(at::kFloat)).to(at::kDouble) : x - y;
  const double tolerance = relative_tolerance(x.numel(), float_blocks);
  expect_near(gpu.sum_xx, cpu.sum_xx, abs_sum(x * x), tolerance, "sum_xx");
  expect_near(gpu.sum_yy, cpu.sum_yy, abs_sum(y * y), tolerance, "sum_yy");
  expect_near(gpu.sum_xy, cpu.sum_xy, abs_sum(x * y), tolerance, "sum_xy");
  expect_near(gpu.sum_dd, cpu.sum_dd, abs_sum(d * d), tolerance, "sum_dd");
  expect_near(gpu.sum_dx, cpu.sum_dx, abs_sum(d * x), tolerance, "sum_dx");
  expect_near(gpu.sum_abs, cpu.sum_abs, abs_sum(d), tolerance, "sum_abs");
}

// Whether a and b hold the same bits, except that both may hold different
// NaNs where nan_payloads_may_differ.
void expect_same_bits(const at::Tensor& a, const at::Tensor& b, bool nan_payloads_may_differ) {
  if (!nan_payloads_may_differ) {
    EXPECT_EQ(byte_checksum(a), byte_checksum(b));
    return;
  }
  const at::Tensor both_nan = at::isnan(a.cpu()) & at::isnan(b.cpu());
  EXPECT_EQ(byte_checksum(a.cpu().masked_fill(both_nan, 0)), byte_checksum(b.cpu().masked_fill(both_nan, 0)));
}

// t on the GPU, `offset` elements into its storage.
at::Tensor on_gpu(const at::Tensor& t, std::int64_t offset) {
  return at::empty({t.numel() + offset}, t.options().device(at::kCUDA)).narrow(0, offset, t.numel()).copy_(t);
}

// The graft of source into target with a fused plan of `scale`, on the CPU
// and on the GPU, measured and written unless told otherwise. The GPU's
// tensors start `offset` and `offset` + 2 elements into their storage.
void expect_same_graft(const at::Tensor& source, const at::Tensor& target, double scale, bool measure = true,
                       bool write = true, std::int64_t offset = 0) {
  const planned plan(scale);
  const at::Tensor cpu_target = target.clone();
  const at::Tensor gpu_source = on_gpu(source, offset);
  const at::Tensor gpu_target = on_gpu(target, offset == 0 ? 0 : offset + 2);
  const detail::recv_outcome cpu = graft_into(plan.chosen, source, cpu_target, measure, write);
  const detail::recv_outcome gpu = graft_into(plan.chosen, gpu_source, gpu_target, measure, write);
  ASSERT_TRUE(cpu.grafted) << cpu.message;
  ASSERT_TRUE(gpu.grafted) << gpu.message;
  if (write) {
    EXPECT_EQ(*plan.calls, 0) << "both grafts took the fused path";
  }

  // What the graft writes, as ATen computes it on each device.
  const auto written = [&](const at::Tensor& s) { return (scale == 1.0 ? s : s * scale).to(target.scalar_type()); };
  const bool arithmetic = scale != 1.0 || source.scalar_type() != target.scalar_type();
  if (write) {
    // On the device, ATen's own ops to the bit; against the CPU, the same
    // bits but for the payload of a NaN that arithmetic made.
    EXPECT_EQ(byte_checksum(gpu_target), byte_checksum(written(gpu_source)));
    expect_same_bits(gpu_target, cpu_target, arithmetic);
  } else {
    EXPECT_EQ(byte_checksum(gpu_target), byte_checksum(target));
  }
  EXPECT_EQ(gpu.cast, cpu.cast);
  EXPECT_FALSE(gpu.moved);
  EXPECT_EQ(gpu.before.device, "cuda:0");
  if (!measure) {
    EXPECT_FALSE(gpu.before.measured);
    EXPECT_FALSE(gpu.metrics);
    return;
  }
  ASSERT_TRUE(gpu.candidate && cpu.candidate && gpu.metrics && cpu.metrics);
  expect_same_info(gpu.before, cpu.before, target, "before");
  expect_same_info(*gpu.candidate, *cpu.candidate, scale == 1.0 ? source : source * scale, "candidate");
  expect_same_metrics(*gpu.metrics, *cpu.metrics, target, written(source));
}

TEST_F(cuda_recv, same_dtype_identity_and_doubling_match_the_cpu) {
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kHalf, at::kDouble}) {
    for (const double scale : {1.0, 2.0}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " scale " + std::to_string(scale));
      expect_same_graft(sample(type, 100'003, 1), sample(type, 100'003, 2), scale);
    }
  }
}

TEST_F(cuda_recv, casts_match_the_cpu) {
  const std::pair<at::ScalarType, at::ScalarType> pairs[] = {
      {at::kFloat, at::kBFloat16}, {at::kBFloat16, at::kFloat}, {at::kHalf, at::kFloat},
      {at::kFloat, at::kHalf},     {at::kDouble, at::kFloat},   {at::kDouble, at::kBFloat16}};
  for (const auto& [from, to] : pairs) {
    for (const double scale : {1.0, 2.0}) {
      SCOPED_TRACE(std::string(c10::toString(from)) + " -> " + c10::toString(to) + " scale " + std::to_string(scale));
      expect_same_graft(sample(from, 70'001, 3), sample(to, 70'001, 4), scale);
    }
  }
}

TEST_F(cuda_recv, nan_and_inf_match_the_cpu) {
  for (const at::ScalarType type : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const double scale : {1.0, 2.0}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + " scale " + std::to_string(scale));
      expect_same_graft(with_specials(sample(type, 50'000, 5), 0), with_specials(sample(type, 50'000, 6), 7), scale);
    }
  }
  expect_same_graft(with_specials(sample(at::kFloat, 50'000, 7), 3), sample(at::kBFloat16, 50'000, 8), 1.0);
}

// Tensors that start one and three elements into their storage are not
// 16-byte aligned: the kernel's scalar loop.
TEST_F(cuda_recv, misaligned_tensors_match_the_cpu) {
  expect_same_graft(sample(at::kFloat, 40'003, 9), sample(at::kFloat, 40'003, 10), 2.0, true, true, 1);
  expect_same_graft(sample(at::kHalf, 40'003, 9), sample(at::kBFloat16, 40'003, 10), 1.0, true, true, 1);
}

// More elements than the kernel's largest grid takes in one sweep.
TEST_F(cuda_recv, a_large_tensor_matches_the_cpu) {
  expect_same_graft(sample(at::kBFloat16, 5'000'011, 11), sample(at::kBFloat16, 5'000'011, 12), 2.0);
}

TEST_F(cuda_recv, measure_off_writes_the_same_bits) {
  expect_same_graft(sample(at::kFloat, 100'003, 13), sample(at::kBFloat16, 100'003, 14), 2.0, /*measure=*/false);
}

TEST_F(cuda_recv, compare_only_measures_the_same_and_writes_nothing) {
  expect_same_graft(sample(at::kHalf, 100'003, 15), sample(at::kFloat, 100'003, 16), 1.0, true, /*write=*/false);
}

// A fixed launch shape and a fold in block order: the same sums, bit for bit.
TEST_F(cuda_recv, repeated_grafts_measure_bit_for_bit) {
  const planned plan(2.0);
  const at::Tensor source = sample(at::kFloat, 1'000'003, 17).to(at::kCUDA);
  const at::Tensor target = sample(at::kFloat, 1'000'003, 18).to(at::kCUDA);
  const detail::recv_outcome first = graft_into(plan.chosen, source, target.clone());
  const detail::recv_outcome second = graft_into(plan.chosen, source, target.clone());
  ASSERT_TRUE(first.metrics && second.metrics);
  for (const auto member : {&diff_metrics::sum_xx, &diff_metrics::sum_yy, &diff_metrics::sum_xy,
                            &diff_metrics::sum_dd, &diff_metrics::sum_dx, &diff_metrics::sum_abs}) {
    EXPECT_EQ(std::memcmp(&(*first.metrics.*member), &(*second.metrics.*member), sizeof(double)), 0);
  }
}

// A CUDA error pending before the graft: the kernel is never queued, the
// call is skipped and the target keeps its bits.
TEST_F(cuda_recv, a_cuda_failure_leaves_the_target_unchanged) {
#ifdef GRAFT_WITH_CUDA_KERNELS
  const planned plan(2.0);
  const at::Tensor source = sample(at::kFloat, 10'007, 19).to(at::kCUDA);
  const at::Tensor target = sample(at::kFloat, 10'007, 20).to(at::kCUDA);
  ASSERT_TRUE(graft_into(plan.chosen, source, target.clone()).grafted);  // the scratch memory is cached now
  const std::uint64_t before = byte_checksum(target);
  void* huge = nullptr;
  ASSERT_NE(cudaMalloc(&huge, std::size_t{1} << 62), cudaSuccess);  // and pending until read
  const detail::recv_outcome outcome = graft_into(plan.chosen, source, target);
  (void)cudaGetLastError();  // whatever is still pending is this test's
  EXPECT_FALSE(outcome.grafted);
  EXPECT_EQ(outcome.error_kind, skip_kind::cuda_failed);
  EXPECT_NE(outcome.message.find("(target tensor unchanged)"), std::string::npos) << outcome.message;
  EXPECT_EQ(byte_checksum(target), before);
  EXPECT_EQ(target._version(), 0);
#endif
}

// Any other failure on CUDA tensors is the recv guard's, as on the CPU.
TEST_F(cuda_recv, a_shape_mismatch_leaves_the_target_unchanged) {
  const planned plan(1.0);
  const at::Tensor target = sample(at::kFloat, 1'000, 21).to(at::kCUDA);
  const std::uint64_t before = byte_checksum(target);
  const detail::recv_outcome outcome = graft_into(plan.chosen, sample(at::kFloat, 999, 22).to(at::kCUDA), target);
  EXPECT_FALSE(outcome.grafted);
  EXPECT_EQ(outcome.error_kind, skip_kind::shape_mismatch);
  EXPECT_EQ(byte_checksum(target), before);
}

}  // namespace
}  // namespace graft
