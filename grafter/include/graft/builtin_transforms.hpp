#pragma once
// The transforms that ship with graft, besides identity_by_rank() (declared in
// transform.hpp). Each is also reachable by spec: builtin:NAME (see
// transform_loader.hpp).

#include <cstdint>
#include <optional>
#include <string_view>

#include <graft/transform.hpp>

namespace graft {

// The senders' extras key reshard reads its dimension from.
inline constexpr std::string_view kReshardDimExtrasKey = "reshard_dim";

// Reshard between tensor-parallel layouts: concatenates every sender's shard
// along dim, splits the whole into recv_world_size equal parts along dim and
// returns part recv_rank (TP=2 -> TP=1, 1 -> 2, 2 -> 4, ...). The dimension is
// `dim` when given (spec builtin:reshard:dim=D), else the senders' extras key
// "reshard_dim" (all senders that set it must agree), else 0. A negative dim
// counts from the end. Throws transform_error naming shapes and dim when a
// shard is missing, shapes differ off the concat dimension, dim is out of
// range, the length does not divide evenly, or the part's shape is not the
// target's.
transform reshard(std::optional<std::int64_t> dim = std::nullopt);

}  // namespace graft
