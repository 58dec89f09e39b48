#pragma once
// GraftConfig: everything a grafter needs to know, from the environment (the
// reference's DUMPER_GRAFTER_* names, so existing launch scripts carry over),
// from key=value pairs or from JSON. Parsing checks types; validate() checks
// the whole when the grafter is enabled. Every failure is a config_error that
// names the field, its value and the fix.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <graft/role.hpp>

namespace graft {

// What a graft measures. full: the statistics of both tensors and the diff
// metrics, from one pass over the data that also writes the target. off:
// shapes and dtypes only; the graft is validate + write, as cheap as copy_.
// Compare-only names always measure: measuring is all they do.
enum class measure_mode { full, off };

std::string to_string(measure_mode mode);

// How the c10d exchange (graft/c10d_exchange.hpp) meets its peers: its own
// settings, beside what every exchange shares. They are read from the same
// keys and environment as the rest (DUMPER_GRAFTER_MASTER_ADDRESS, ...), and
// graft_config::validate() checks them in the reference's order.
struct c10d_options {
  std::string master_address;
  int master_port = -1;
  std::string backend = "gloo";  // gloo | nccl
  std::string group_name = "graft";
  // What keeps two graft worlds apart on one master port: every process of a
  // world must present the same token, and a process with another one is
  // refused on its own side while the world carries on. Unset: graft rank 0
  // draws one for its world, and processes without a token join it. An
  // identifier, not a password: anyone who can reach the store can read it.
  std::optional<std::string> world_token;
};

struct graft_config {
  bool enable = false;
  std::optional<role> side;                  // DUMPER_GRAFTER_ROLE
  std::optional<std::string> b2t_filter;     // unset: the direction never matches
  std::optional<std::string> t2b_filter;
  // Names that flow baseline -> target like b2t, but the receiver only
  // measures them against its own tensor and never writes it.
  std::optional<std::string> compare_filter;
  int baseline_world_size = -1;
  int target_world_size = -1;
  c10d_options c10d;
  double timeout_seconds = 300.0;
  // Longer waits overflow the clocks that deadlines are computed with.
  static constexpr double max_timeout_seconds = 30 * 24 * 3600.0;
  // What is wrong with seconds as a timeout ("must be more than 0 and at
  // most ..., got X"), or nullopt; validate() and the c10d exchange share it.
  static std::optional<std::string> timeout_problem(double seconds);
  std::optional<std::string> transform_path; // LIBRARY:SYMBOL; unset: identity-by-rank
  measure_mode measure = measure_mode::full;  // full | off
  // A JSON-lines file the grafter writes its events to as well as to its
  // sink; {role}, {rank}, {graft_rank} and {pid} are filled in (graft/events_path.hpp).
  std::optional<std::string> events_path;

  // Reads DUMPER_GRAFTER_<FIELD> from the given environment (name -> value);
  // unset or blank values keep the default, and a DUMPER_GRAFTER_ variable
  // that names no field is a config_error (a typo would go unnoticed).
  static graft_config from_env_map(const std::map<std::string, std::string>& env);
  // Reads the process environment.
  static graft_config from_env();
  // "key=value" pairs; keys as in key_names(), with or without "grafter_".
  static graft_config from_kv_pairs(const std::vector<std::string>& pairs);
  // A JSON object with the same keys.
  static graft_config from_json(const nlohmann::json& object);

  // When enabled: throws config_error for the first invalid field, in the
  // reference's order (role, address, port, world sizes, filters), then
  // backend, timeout, transform spec, events path, and compiles the filters.
  void validate() const;

  // The valid keys, in declaration order.
  static const std::vector<std::string>& key_names();
  // The environment variable of a key: "b2t_filter" -> "DUMPER_GRAFTER_B2T_FILTER".
  static std::string env_name(std::string_view key);
};

// This process's place on its own side.
struct side_rank {
  int rank = 0;
  int world_size = 1;
};

// RANK and WORLD_SIZE from the environment (torchrun's names); 0/1 when unset.
// Throws config_error on a malformed value.
side_rank side_rank_from_env();

// The rank layout of a validated, enabled config for this process; throws
// config_error when the side's world size disagrees with the configuration.
rank_layout make_rank_layout(const graft_config& config, side_rank local);

}  // namespace graft
