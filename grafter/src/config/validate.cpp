#include <graft/config.hpp>

#include <sstream>
#include <string>

#include <graft/error.hpp>
#include <graft/events_path.hpp>
#include <graft/filter.hpp>
#include <graft/transform_loader.hpp>

namespace graft {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  GRAFT_THROW(config_error, message);
}

}  // namespace

void graft_config::validate() const {
  if (!enable) return;
  // The reference's order, so that its users meet the same first complaint.
  if (!side) {
    invalid("role must be 'baseline' or 'target' when the grafter is enabled, got nothing; set " +
            env_name("role") + "=baseline on one side and =target on the other");
  }
  if (c10d.master_address.empty()) {
    invalid("master_address must be set when the grafter is enabled; set " + env_name("master_address") +
            " to the host of graft rank 0 (e.g. 127.0.0.1)");
  }
  if (c10d.master_port < 1 || c10d.master_port > 65535) {
    invalid("master_port must be a port in 1..65535 when the grafter is enabled, got " +
            std::to_string(c10d.master_port) + "; set " + env_name("master_port"));
  }
  if (baseline_world_size <= 0) {
    invalid("baseline_world_size must be > 0 when the grafter is enabled, got " +
            std::to_string(baseline_world_size) + "; set " + env_name("baseline_world_size"));
  }
  if (target_world_size <= 0) {
    invalid("target_world_size must be > 0 when the grafter is enabled, got " +
            std::to_string(target_world_size) + "; set " + env_name("target_world_size"));
  }
  if (!b2t_filter && !t2b_filter && !compare_filter) {
    invalid("the grafter is enabled but neither b2t_filter nor t2b_filter (nor compare_filter) is set; "
            "nothing would ever be grafted. Set " + env_name("b2t_filter") + ", " + env_name("t2b_filter") +
            " or " + env_name("compare_filter") + " (e.g. name == 'attn_output')");
  }
  if (c10d.backend != "gloo" && c10d.backend != "nccl") {
    invalid("backend must be 'gloo' or 'nccl', got '" + c10d.backend + "'");
  }
  if (const auto problem = timeout_problem(timeout_seconds)) {
    invalid("timeout " + *problem + "; set " + env_name("timeout"));
  }
  if (c10d.group_name.empty()) invalid("group_name must not be empty; set " + env_name("group_name"));
  if (c10d.world_token && c10d.world_token->empty()) {
    invalid("world_token must not be empty when it is set; set " + env_name("world_token") +
            " to the same text for every process of one world, or leave it unset");
  }
  if (transform_path) {
    if (const auto problem = spec_problem(*transform_path)) {
      invalid("transform_path: " + *problem);
    }
  }
  if (events_path) {
    if (const auto problem = events_path_problem(*events_path)) {
      invalid("events_path '" + *events_path + "': " + *problem + "; set " + env_name("events_path"));
    }
  }
  if (b2t_filter) filter::compile(*b2t_filter, "b2t_filter");
  if (t2b_filter) filter::compile(*t2b_filter, "t2b_filter");
  if (compare_filter) filter::compile(*compare_filter, "compare_filter");
}

std::optional<std::string> graft_config::timeout_problem(double seconds) {
  if (seconds > 0 && seconds <= max_timeout_seconds) return std::nullopt;
  std::ostringstream got;
  got << seconds;
  return "must be more than 0 and at most " + std::to_string(static_cast<int>(max_timeout_seconds)) +
         " seconds (30 days), got " + got.str();
}

}  // namespace graft
