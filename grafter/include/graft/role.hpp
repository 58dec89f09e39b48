#pragma once
// Roles, directions and the rank layout of the graft world.

#include <string_view>

namespace graft {

enum class role { baseline, target };
// b2t: the name flows baseline -> target; t2b: target -> baseline.
enum class direction { b2t, t2b };

std::string_view to_string(role r);
std::string_view to_string(direction d);

// Senders of a direction: the baseline for b2t, the target for t2b.
inline role sender_role(direction d) { return d == direction::b2t ? role::baseline : role::target; }
inline bool is_sender(role r, direction d) { return sender_role(d) == r; }

// Graft world = baseline ranks 0..B-1, then target ranks B..B+T-1.
struct rank_layout {
  int baseline_world_size = 1;
  int target_world_size = 1;
  role side = role::baseline;
  int local_rank = 0;  // this process's rank within its side

  int graft_world_size() const { return baseline_world_size + target_world_size; }
  int side_world_size(role r) const { return r == role::baseline ? baseline_world_size : target_world_size; }
  int first_graft_rank(role r) const { return r == role::baseline ? 0 : baseline_world_size; }
  int graft_rank() const { return first_graft_rank(side) + local_rank; }
};

}  // namespace graft
