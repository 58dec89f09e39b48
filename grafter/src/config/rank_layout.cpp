#include <graft/config.hpp>

#include <cstdlib>
#include <string>

#include <graft/error.hpp>

#include "config/field_parsers.hpp"

namespace graft {

side_rank side_rank_from_env() {
  side_rank out;
  if (const char* rank = std::getenv("RANK"); rank != nullptr && *rank != '\0') {
    out.rank = detail::parse_int(rank, "RANK");
  }
  if (const char* world = std::getenv("WORLD_SIZE"); world != nullptr && *world != '\0') {
    out.world_size = detail::parse_int(world, "WORLD_SIZE");
  }
  return out;
}

rank_layout make_rank_layout(const graft_config& config, side_rank local) {
  const role side = config.side.value_or(role::baseline);
  const int configured = side == role::baseline ? config.baseline_world_size : config.target_world_size;
  const std::string side_name(to_string(side));
  if (local.world_size != configured) {
    GRAFT_THROW(config_error, side_name + "_world_size=" + std::to_string(configured) +
                                  " but this process's side has WORLD_SIZE=" + std::to_string(local.world_size) +
                                  "; they must match on the " + side_name + " side (set " +
                                  graft_config::env_name(side_name + "_world_size") + " or WORLD_SIZE)");
  }
  if (local.rank < 0 || local.rank >= local.world_size) {
    GRAFT_THROW(config_error, "RANK=" + std::to_string(local.rank) + " is outside 0.." +
                                  std::to_string(local.world_size - 1) + " on the " + side_name + " side");
  }
  rank_layout layout;
  layout.baseline_world_size = config.baseline_world_size;
  layout.target_world_size = config.target_world_size;
  layout.side = side;
  layout.local_rank = local.rank;
  return layout;
}

}  // namespace graft
