#pragma once
// Joining the graft world: the TCPStore at the master address (hosted by
// graft rank 0), a check that every rank runs with the same layout, then the
// process groups. Bounded by the config's timeout; throws config_error,
// timeout_error or exchange_error whose messages name the address, port, graft
// rank and world size.

#include <chrono>

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#ifdef GRAFT_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <graft/config.hpp>
#include <graft/role.hpp>

namespace graft::detail {

// The concrete groups, not a common base: libtorch 1.x derives them from
// ProcessGroup, 2.x from Backend, with the same send/recv.
struct c10d_groups {
  c10::intrusive_ptr<c10d::Store> store;             // prefixed by the group name
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;   // headers, extras, CPU payloads
#ifdef GRAFT_WITH_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;   // CUDA payloads; null unless backend nccl
#endif

  bool has_nccl() const;
};

// Throws config_error for a backend, address, port or timeout the c10d
// exchange cannot use, and for backend=nccl outside torch's blocking-wait mode
// (nccl_blocking_wait.hpp).
void check_c10d_config(const graft_config& config);

std::chrono::milliseconds exchange_timeout(const graft_config& config);

// join_graft_world's first part: the store reached (or, on graft rank 0,
// hosted) and every rank's layout agreed there, before any process group;
// the deadline is the rendezvous's. A test peer stops between the parts.
struct met_world {
  c10::intrusive_ptr<c10d::Store> store;  // prefixed by the group name
  std::chrono::steady_clock::time_point deadline;
};
met_world meet_at_store(const graft_config& config, const rank_layout& layout);

c10d_groups join_graft_world(const graft_config& config, const rank_layout& layout);

}  // namespace graft::detail
