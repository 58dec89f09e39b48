#pragma once
// The parts of the scenario loader, each recording problems in the checker.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <graft/harness/json_checker.hpp>
#include <graft/harness/scenario.hpp>

namespace graft::harness::detail {

std::optional<tensor_spec> parse_tensor_spec(const nlohmann::json& value, const std::string& path, json_checker& check);

// A flat array of numbers or "NaN" / "Inf" / "-Inf" / "-0.0".
bool check_value_list(const nlohmann::json& value, const std::string& path, json_checker& check);

// `setup` restricts outcomes to those of grafter construction.
std::optional<expectation> parse_expectation(const nlohmann::json& value, const std::string& path, bool setup,
                                             json_checker& check);

// The top-level "device" key into s.baseline_devices / s.target_devices (one
// per rank, "cpu" where unset); needs the world sizes parsed.
void parse_devices(const nlohmann::json& document, scenario& s, json_checker& check);

}  // namespace graft::harness::detail
