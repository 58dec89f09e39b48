#pragma once
// Which graft world a process belongs to. Graft rank 0 puts its world's token
// in its layout record; a joining process compares it with its own before it
// claims a rank, so that a process of another world (a second run on the same
// master port, a stray client) is refused on its own side and the world it
// reached carries on.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <graft/config.hpp>

namespace graft::detail {

struct world_token {
  std::string digest;             // what travels in the store; never the token's text
  bool from_configuration = false;  // world_token set; else drawn by graft rank 0 for its world

  nlohmann::json record() const;  // {"token": digest, "token_source": "configuration" | "drawn"}
  static world_token from_record(const nlohmann::json& record);
};

// Graft rank 0's token: the configured one, or a random one for this world.
world_token host_token(const graft_config& config);

// Why a process with `config` may not join the world whose rank 0 holds
// `hosts` (a sentence naming both sides' settings and the fix); nullopt when
// it may. A process without a token joins a world whose token was drawn.
std::optional<std::string> admission_problem(const graft_config& config, const world_token& hosts);

// The token this process presents once admitted: its own, or the drawn one.
world_token joining_token(const graft_config& config, const world_token& hosts);

}  // namespace graft::detail
