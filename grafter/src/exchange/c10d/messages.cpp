#include "exchange/c10d/messages.hpp"

#include <sstream>

namespace graft::detail {

std::string rank_text(const rank_layout& layout, int graft_rank) {
  const bool baseline = graft_rank < layout.baseline_world_size;
  const int local = baseline ? graft_rank : graft_rank - layout.baseline_world_size;
  return "graft rank " + std::to_string(graft_rank) + " (" +
         std::string(to_string(baseline ? role::baseline : role::target)) + " rank " +
         std::to_string(local) + ")";
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds << " s";
  return out.str();
}

std::string endpoint_text(const graft_config& config, const rank_layout& layout) {
  const int me = layout.graft_rank();
  return "graft rank " + std::to_string(me) + " of " + std::to_string(layout.graft_world_size()) + " (" +
         std::string(to_string(layout.side)) + " rank " + std::to_string(layout.local_rank) + ") at " +
         config.c10d.master_address + ":" + std::to_string(config.c10d.master_port) + ", group '" +
         config.c10d.group_name + "'";
}

}  // namespace graft::detail
