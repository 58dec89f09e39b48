// Which one-pass write the recv path picks by device: decided without a GPU
// (a c10::Device names one without touching it).

#include "core/one_pass_device.hpp"

#include <gtest/gtest.h>

namespace graft::detail {
namespace {

const c10::Device cpu(c10::kCPU);
const c10::Device cuda0(c10::kCUDA, 0);
const c10::Device cuda1(c10::kCUDA, 1);

TEST(one_pass_device, two_cpu_tensors_take_the_cpu_loops_in_every_build) {
  EXPECT_EQ(one_pass_device_for(cpu, cpu, false), one_pass_device::cpu);
  EXPECT_EQ(one_pass_device_for(cpu, cpu, true), one_pass_device::cpu);
}

TEST(one_pass_device, one_cuda_device_takes_the_kernel_where_it_is_built) {
  EXPECT_EQ(one_pass_device_for(cuda0, cuda0, true), one_pass_device::cuda);
  EXPECT_EQ(one_pass_device_for(cuda1, cuda1, true), one_pass_device::cuda);
  EXPECT_EQ(one_pass_device_for(cuda0, cuda0, false), one_pass_device::none);
}

TEST(one_pass_device, mixed_devices_go_through_aten) {
  EXPECT_EQ(one_pass_device_for(cuda0, cuda1, true), one_pass_device::none);
  EXPECT_EQ(one_pass_device_for(cpu, cuda0, true), one_pass_device::none);
  EXPECT_EQ(one_pass_device_for(cuda0, cpu, true), one_pass_device::none);
  EXPECT_EQ(one_pass_device_for(c10::Device(c10::kMeta), c10::Device(c10::kMeta), true), one_pass_device::none);
}

// The build says what it has: the kernel needs a CUDA compiler and a libtorch with CUDA.
TEST(one_pass_device, the_build_reports_its_kernel) {
#ifdef GRAFT_WITH_CUDA_KERNELS
  EXPECT_TRUE(cuda_kernels_built());
#else
  EXPECT_FALSE(cuda_kernels_built());
#endif
}

}  // namespace
}  // namespace graft::detail
