// CUDA tensors through the c10d exchange, one thread per rank (c10d_world):
// over NCCL in worlds of 1+1 and 2+2, over Gloo (staged through host memory),
// and the refusal of a call that mixes a CUDA sender on the NCCL route with
// a CPU receiver. Labelled gpu; each test skips with its reason where the
// build has no CUDA or NCCL, or the machine too few devices (NCCL refuses
// two ranks of one group on one device, so a world of N CUDA ranks over NCCL
// needs N devices).

#include <cstdlib>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <gtest/gtest.h>

#include "c10d_world.hpp"
#include "exchange/c10d/wire_header.hpp"

namespace {

using graft::direction;
using graft::rank_layout;

// Why this machine and build cannot run a test needing `devices` CUDA
// devices (and NCCL when nccl); empty when they can.
std::string missing(int devices, bool nccl) {
#ifndef GRAFT_TORCH_CUDA
  return "this graft was built against a CPU-only libtorch";
#else
  if (nccl) {
#ifndef GRAFT_WITH_NCCL
    return "this graft was built without NCCL (CMake found no nccl.h: set GRAFT_NCCL_INCLUDE_DIR)";
#endif
  }
  const int visible = at::hasCUDA() ? static_cast<int>(at::getNumGPUs()) : 0;
  if (visible == 0) return "needs a CUDA device: none visible (torch.cuda device_count 0)";
  if (visible < devices) {
    return "needs " + std::to_string(devices) + " CUDA devices (NCCL: one per rank), " + std::to_string(visible) +
           " visible";
  }
  return "";
#endif
}

#define GRAFT_SKIP_UNLESS(devices, nccl)                      \
  do {                                                        \
    const std::string why = missing((devices), (nccl));       \
    if (!why.empty()) GTEST_SKIP() << why;                    \
  } while (false)

class CudaExchange : public ::testing::Test {
 protected:
  // graft requires torch's blocking-wait mode for NCCL; torch reads it when
  // a group is created.
  void SetUp() override { ::setenv("TORCH_NCCL_BLOCKING_WAIT", "1", 1); }
};

at::Tensor value_of(int local_rank, const c10::Device& device) {
  return (at::arange(12, at::kFloat).reshape({3, 4}) + 100.0 * local_rank).to(device);
}

// The rank's own device: graft rank modulo the devices, as the harness does.
c10::Device device_of(const rank_layout& l) {
  const c10::Device d(c10::kCUDA, static_cast<c10::DeviceIndex>(l.graft_rank() % at::getNumGPUs()));
  c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(d);
  return d;
}

// One b2t call: every baseline rank sends its value, every target rank checks
// it got each sender's, on its own device.
void b2t_on_cuda(const rank_layout& l, graft::exchange& ex) {
  const c10::Device device = device_of(l);
  graft::exchange_call call;
  call.sequence = 0;
  call.fingerprint = 0x5eed;
  call.direction = direction::b2t;
  call.name = "hidden";
  call.recv_device = device;
  if (l.side == graft::role::baseline) {
    const graft::contribution mine{value_of(l.local_rank, device), nullptr};
    ex.run(call, &mine);
    return;
  }
  const graft::received got = ex.run(call, nullptr);
  ASSERT_EQ(got.tensors.size(), static_cast<std::size_t>(l.baseline_world_size));
  for (std::size_t s = 0; s < got.tensors.size(); ++s) {
    EXPECT_EQ(got.tensors[s].device(), device);
    EXPECT_TRUE(at::equal(got.tensors[s].cpu(), value_of(static_cast<int>(s), c10::Device(c10::kCPU))));
  }
}

TEST_F(CudaExchange, NcclOneToOne) {
  GRAFT_SKIP_UNLESS(2, true);
  graft_test::c10d_world world{1, 1, 30, "nccl"};
  graft_test::rethrow_if_any(world.run(b2t_on_cuda));
}

TEST_F(CudaExchange, NcclTwoToTwo) {
  GRAFT_SKIP_UNLESS(4, true);
  graft_test::c10d_world world{2, 2, 30, "nccl"};
  graft_test::rethrow_if_any(world.run(b2t_on_cuda));
}

// Gloo carries CUDA tensors through host memory, so ranks may share a device.
TEST_F(CudaExchange, GlooCarriesCudaTensorsOnOneDevice) {
  GRAFT_SKIP_UNLESS(1, false);
  graft_test::c10d_world world{1, 1, 30, "gloo"};
  graft_test::rethrow_if_any(world.run(b2t_on_cuda));
}

// The refusal comes from the headers, before any NCCL transfer, so one
// device is enough; both ranks get it.
TEST_F(CudaExchange, NcclRefusesACudaSenderWithACpuReceiver) {
  GRAFT_SKIP_UNLESS(1, true);
  graft_test::c10d_world world{1, 1, 30, "nccl"};
  const auto errors = world.run([](const rank_layout& l, graft::exchange& ex) {
    graft::exchange_call call;
    call.fingerprint = 0x5eed;
    call.direction = direction::b2t;
    call.name = "hidden";
    call.recv_device = c10::Device(c10::kCPU);
    if (l.side == graft::role::baseline) {
      const graft::contribution mine{value_of(0, device_of(l)), nullptr};
      ex.run(call, &mine);
    } else {
      ex.run(call, nullptr);
    }
  });
  ASSERT_EQ(errors.size(), 2u);
  for (const auto& e : errors) {
    ASSERT_TRUE(e) << "a rank accepted the mixed call";
    try {
      std::rethrow_exception(e);
    } catch (const graft::mixed_device_error& refused) {
      const std::string what = refused.what();
      EXPECT_NE(what.find("sends a CUDA tensor over NCCL"), std::string::npos) << what;
      EXPECT_NE(what.find("graft rank 1 (target rank 0) receives into a CPU tensor"), std::string::npos) << what;
    } catch (const std::exception& other) {
      ADD_FAILURE() << "not a mixed_device_error: " << other.what();
    }
  }
}

}  // namespace
