#pragma once
// The exchange between real processes: a torch c10d TCPStore at the config's
// master address and port (hosted by graft rank 0), wrapped in a PrefixStore
// named by the group name, and a ProcessGroupGloo (CPU tensors) or
// ProcessGroupNCCL (CUDA tensors, when built against a CUDA libtorch).

#include <graft/exchange.hpp>

namespace graft {

// The factory the grafter uses by default.
exchange_factory c10d_exchange_factory();

}  // namespace graft
