#include "exchange/c10d/world_token.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <random>

namespace graft::detail {
namespace {

constexpr const char* kConfigured = "configuration";
constexpr const char* kDrawn = "drawn";

std::string hex(std::uint64_t value) {
  std::array<char, 17> text{};
  std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(value));
  return text.data();
}

// FNV-1a: the same digest on every host and build, and the token's text
// stays out of the store, the messages and the events.
std::string digest_of(const std::string& token) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char c : token) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hex(hash);
}

}  // namespace

nlohmann::json world_token::record() const {
  return {{"token", digest}, {"token_source", from_configuration ? kConfigured : kDrawn}};
}

world_token world_token::from_record(const nlohmann::json& record) {
  return {record.at("token").get<std::string>(), record.at("token_source").get<std::string>() == kConfigured};
}

world_token host_token(const graft_config& config) {
  if (config.c10d.world_token) return {digest_of(*config.c10d.world_token), true};
  std::random_device entropy;
  const std::uint64_t high = (std::uint64_t{entropy()} << 32) | entropy();
  const std::uint64_t low = (std::uint64_t{entropy()} << 32) | entropy();
  return {hex(high) + hex(low), false};
}

std::optional<std::string> admission_problem(const graft_config& config, const world_token& hosts) {
  const std::string variable = graft_config::env_name("world_token");
  if (!config.c10d.world_token) {
    if (!hosts.from_configuration) return std::nullopt;
    return "that world has a world token and this process has none: set " + variable +
           " to that world's token here, or give this process a master_port of its own";
  }
  if (!hosts.from_configuration) {
    return "this process has a world token and that world was started without one: set the same " + variable +
           " on every process of the world, or give this process a master_port of its own";
  }
  if (digest_of(*config.c10d.world_token) == hosts.digest) return std::nullopt;
  return "that world's token differs from this process's " + variable +
         ": this process belongs to another world; give each world a master_port of its own, or the same " +
         "token to every process of one world";
}

world_token joining_token(const graft_config& config, const world_token& hosts) {
  return config.c10d.world_token ? world_token{digest_of(*config.c10d.world_token), true} : hosts;
}

}  // namespace graft::detail
