#pragma once
// An in-process exchange: the ranks of both sides are threads of one process
// sharing a hub. For unit tests; real programs use the c10d exchange. It
// follows the same contract as every exchange (header check, timeouts).

#include <memory>

#include <graft/exchange.hpp>

namespace graft {

class local_exchange_hub;

// One hub per graft world; every rank's exchange points at the same hub.
std::shared_ptr<local_exchange_hub> make_local_exchange_hub(int baseline_world_size,
                                                            int target_world_size);

// An exchange factory that joins the hub (timeouts from the config).
exchange_factory local_exchange_factory(std::shared_ptr<local_exchange_hub> hub);

}  // namespace graft
