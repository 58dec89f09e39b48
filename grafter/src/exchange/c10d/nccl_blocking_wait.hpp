#pragma once
// backend=nccl keeps graft's promise (every wait bounded by the timeout, a
// missing peer an event, never a hang or a crash) only when torch's
// ProcessGroupNCCL runs in blocking-wait mode:
//   - libtorch before 2.2 blocks the host in a transfer's wait() only in that
//     mode; otherwise wait() merely orders the current CUDA stream after the
//     transfer, so a peer that never sends stalls the GPU, not the call;
//   - outside that mode, libtorch 2.x's watchdog thread watches every transfer
//     and by default (TORCH_NCCL_ASYNC_ERROR_HANDLING=3) takes the whole
//     process down when one times out or is aborted, even after graft has
//     turned the timeout into a group_error.
// torch reads the switch from the environment when a group is created. graft
// checks it instead of setting it: setenv races the getenv of the host's other
// threads, and the switch applies to every NCCL group of the process.

#include <functional>
#include <optional>
#include <string>

namespace graft::detail {

// Which variables a libtorch reads: before 2.2 only NCCL_BLOCKING_WAIT, an
// integer; from 2.2 TORCH_NCCL_BLOCKING_WAIT and, when that is unset,
// NCCL_BLOCKING_WAIT, either as y/yes/1/t/true or n/no/0/f/false in any case.
enum class blocking_wait_names { nccl_only, torch_first };

// The names this build's libtorch reads.
blocking_wait_names libtorch_blocking_wait_names();

// lookup(name) is the variable's value, or nullptr when it is unset (as
// std::getenv).
using env_lookup = std::function<const char*(const char*)>;

// Why a ProcessGroupNCCL created now would not run in blocking-wait mode,
// naming the variable, its value and the fix; nullopt when it would.
std::optional<std::string> nccl_blocking_wait_problem(const env_lookup& lookup, blocking_wait_names names);

// Throws config_error with that problem for this process's environment and
// this build's libtorch.
void require_nccl_blocking_wait();

}  // namespace graft::detail
