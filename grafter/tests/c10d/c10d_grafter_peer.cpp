// One rank of a multi-process c10d test that plays a host program: its dump
// calls go through graft::grafter (maybe_intercept), as a host's do.
//
//   c10d_grafter_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S EVENTS_PATH [backend=gloo|nccl] DIRECTION...
//
// The config is built here, not read from the environment: enabled, the
// world at 127.0.0.1:PORT, b2t_filter "name == 'b2t_value'", t2b_filter
// "name == 't2b_value'", the timeout, and events_path EVENTS_PATH (the
// grafter's JSON-lines events; its text lines go to stderr). backend=nccl
// sets the config's backend and puts every tensor on a CUDA device (graft
// rank modulo the devices visible); graft then needs
// TORCH_NCCL_BLOCKING_WAIT=1 (or NCCL_BLOCKING_WAIT=1) in the environment.
//
// Each DIRECTION (b2t or t2b) is one dump call tagged {'name': 'b2t_value'}
// or {'name': 't2b_value'} with a 2x3 float tensor: a sender's holds
// c10d_peer's value for the call (c10d_peer ... as-grafter is a matching
// peer), a receiver's target a pattern of its own. The program prints
// "started" on entering main, then one line per call
//
//   call {"call":N,"direction":...,"receives":...,"seconds":...,"unchanged":...,"grafted":...,"active":...}
//
// seconds: how long maybe_intercept blocked; unchanged: the tensor's storage
// is byte for byte what it was before the call (memcmp, of a copy on the
// host for a CUDA tensor); grafted: the target now holds its sender's value;
// active: the grafter after the call. Then "done" and exit 0: a failed
// exchange never stops a host program. A config the grafter refuses prints
// "error config_error: MESSAGE" and exits 10.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <nlohmann/json.hpp>

#include <graft/config.hpp>
#include <graft/error.hpp>
#include <graft/grafter.hpp>

namespace {

constexpr int kConfigError = 10;
constexpr int kUsage = 2;
constexpr int kFirstOption = 8;

// c10d_peer's value_of: what a sender of the call with this sequence sends.
at::Tensor value_of(std::uint64_t sequence, int local_rank) {
  return at::arange(6, at::kFloat).reshape({2, 3}) + 100.0 * local_rank + 1000.0 * static_cast<double>(sequence);
}

// A receiver's own values, unlike any sender's.
at::Tensor target_pattern(int call) {
  return at::arange(6, at::kFloat).reshape({2, 3}) * -0.5 - 7.25 - 10.0 * call;
}

// Every byte of t's storage, read through a byte tensor over the same
// memory (copied to the host from a CUDA device).
std::vector<unsigned char> storage_bytes(const at::Tensor& t) {
  const auto nbytes = static_cast<std::int64_t>(t.storage().nbytes());
  const at::Tensor over = at::from_blob(const_cast<void*>(t.storage().data()), {nbytes},
                                        at::TensorOptions().dtype(at::kByte).device(t.device()));
  const at::Tensor host = over.cpu().clone();
  const auto* data = host.data_ptr<unsigned char>();
  return std::vector<unsigned char>(data, data + nbytes);
}

bool same_bytes(const at::Tensor& t, const std::vector<unsigned char>& before) {
  const std::vector<unsigned char> now = storage_bytes(t);
  return now.size() == before.size() && std::memcmp(now.data(), before.data(), before.size()) == 0;
}

int run(int argc, char** argv) {
  // The first line, once the program (libtorch included) is loaded.
  std::cout << "started" << std::endl;
  constexpr const char* usage =
      "usage: c10d_grafter_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S EVENTS_PATH [backend=gloo|nccl] DIRECTION...\n";
  if (argc <= kFirstOption) {
    std::cerr << usage;
    return kUsage;
  }
  std::vector<std::string> directions;
  std::string backend = "gloo";
  for (int i = kFirstOption; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "backend=nccl" || arg == "backend=gloo") {
      backend = arg.substr(arg.find('=') + 1);
    } else if (arg == "b2t" || arg == "t2b") {
      directions.push_back(arg);
    } else {
      std::cerr << "c10d_grafter_peer: '" << arg << "' is neither an option nor a direction (b2t, t2b)\n" << usage;
      return kUsage;
    }
  }
  graft::graft_config config;
  config.enable = true;
  config.side = std::string(argv[1]) == "baseline" ? graft::role::baseline : graft::role::target;
  config.c10d.master_address = "127.0.0.1";
  config.baseline_world_size = std::atoi(argv[3]);
  config.target_world_size = std::atoi(argv[4]);
  config.c10d.master_port = std::atoi(argv[5]);
  config.timeout_seconds = std::atof(argv[6]);
  config.events_path = argv[7];
  config.b2t_filter = "name == 'b2t_value'";
  config.t2b_filter = "name == 't2b_value'";
  config.c10d.backend = backend;
  graft::side_rank local;
  local.rank = std::atoi(argv[2]);
  local.world_size = *config.side == graft::role::baseline ? config.baseline_world_size : config.target_world_size;

  graft::grafter g(config, local);
  // This rank's device: its graft rank modulo the devices, as the harness does.
  c10::Device device(c10::kCPU);
  if (backend == "nccl") {
    const auto devices = std::max<std::size_t>(1, at::getNumGPUs());
    device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(
                                         static_cast<std::size_t>(g.layout().graft_rank()) % devices));
    c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(device);
  }
  for (int call = 0; call < static_cast<int>(directions.size()); ++call) {
    const std::string& dir = directions[static_cast<std::size_t>(call)];
    const bool receives = (dir == "b2t") == (*config.side == graft::role::target);
    // The grafter numbers its matched calls from 1.
    const std::uint64_t sequence = static_cast<std::uint64_t>(call) + 1;
    const at::Tensor value = (receives ? target_pattern(call) : value_of(sequence, local.rank)).to(device);
    const std::vector<unsigned char> before = storage_bytes(value);
    const auto started = std::chrono::steady_clock::now();
    g.maybe_intercept(value, {{"name", dir + "_value"}});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const nlohmann::json line = {{"call", call},
                                 {"direction", dir},
                                 {"receives", receives},
                                 {"seconds", seconds},
                                 {"unchanged", same_bytes(value, before)},
                                 {"grafted", receives && at::equal(value.cpu(), value_of(sequence, local.rank))},
                                 {"active", g.active()}};
    std::cout << "call " << line.dump() << std::endl;
  }
  std::cout << "done" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const graft::config_error& e) {
    std::cout << "error config_error: " << e.what() << std::endl;
    return kConfigError;
  }
}
