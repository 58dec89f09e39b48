#pragma once
// The phrases every c10d exchange message uses to name a rank, a duration and
// this process's place in the graft world.

#include <string>

#include <graft/config.hpp>
#include <graft/role.hpp>

namespace graft::detail {

// "graft rank 2 (target rank 1)".
std::string rank_text(const rank_layout& layout, int graft_rank);

// "2 s", "0.25 s".
std::string seconds_text(double seconds);

// "graft rank 1 of 2 (target rank 0) at 127.0.0.1:29500, group 'graft'".
std::string endpoint_text(const graft_config& config, const rank_layout& layout);

}  // namespace graft::detail
