#pragma once
// The exchange between real processes: a torch c10d TCPStore at the config's
// master address and port (hosted by graft rank 0), wrapped in a PrefixStore
// named by the group name, and a ProcessGroupGloo (CPU tensors) or
// ProcessGroupNCCL (CUDA tensors, when built against a CUDA libtorch).

#include <nlohmann/json.hpp>

#include <graft/exchange.hpp>

namespace graft {

struct graft_config;

// The factory the grafter uses by default.
exchange_factory c10d_exchange_factory();

// Where the c10d exchange of this config meets its peers, as events name it
// ({"master_address": ..., "master_port": ...}): group_init carries it, and
// so does a group_error of a world that never formed.
nlohmann::json c10d_meeting_point(const graft_config& config);

}  // namespace graft
