#include "exchange/c10d/nccl_blocking_wait.hpp"

#include <cstdlib>

#include <torch/version.h>

#include <graft/error.hpp>

#include <graft/ascii_lower.hpp>

namespace graft::detail {
namespace {

constexpr const char* kTorchName = "TORCH_NCCL_BLOCKING_WAIT";
constexpr const char* kNcclName = "NCCL_BLOCKING_WAIT";

bool reads_as_true(const std::string& value, blocking_wait_names names) {
  if (names == blocking_wait_names::nccl_only) return value == "1";
  const std::string v = ascii_lower(value);
  return v == "1" || v == "y" || v == "yes" || v == "t" || v == "true";
}

std::string why() {
  return "without it, a transfer that times out ends the process (torch's NCCL watchdog) or stalls the GPU "
         "instead of becoming a group_error within DUMPER_GRAFTER_TIMEOUT. Set it in the environment of every "
         "process before it starts (it applies to all of the process's NCCL groups), or use backend=gloo";
}

}  // namespace

blocking_wait_names libtorch_blocking_wait_names() {
  return TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
             ? blocking_wait_names::torch_first
             : blocking_wait_names::nccl_only;
}

std::optional<std::string> nccl_blocking_wait_problem(const env_lookup& lookup, blocking_wait_names names) {
  const bool torch_first = names == blocking_wait_names::torch_first;
  const char* read_name = torch_first ? kTorchName : kNcclName;
  const char* value = lookup(read_name);
  if (value == nullptr && torch_first) value = lookup(read_name = kNcclName);
  if (value != nullptr && reads_as_true(value, names)) return std::nullopt;

  std::string message = "backend: 'nccl' needs torch's blocking wait, and ";
  if (value != nullptr) {
    message += std::string(read_name) + " is '" + value + "': set " + read_name + "=1";
  } else if (torch_first) {
    message += std::string(kTorchName) + " and " + kNcclName + " are unset: set " + kTorchName + "=1";
  } else {
    message += std::string(kNcclName) + " is unset: set " + kNcclName + "=1";
  }
  if (!torch_first && lookup(kTorchName) != nullptr) {
    message += std::string(" (a libtorch before 2.2, as this one, reads only ") + kNcclName + ", not " +
               kTorchName + ")";
  }
  return message + "; " + why();
}

void require_nccl_blocking_wait() {
  const auto environment = [](const char* name) -> const char* { return std::getenv(name); };
  if (const auto problem = nccl_blocking_wait_problem(environment, libtorch_blocking_wait_names())) {
    GRAFT_THROW(config_error, *problem);
  }
}

}  // namespace graft::detail
