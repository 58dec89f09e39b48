#include <graft/harness/tolerance.hpp>

#include <cmath>

#include <graft/error.hpp>

namespace graft::harness {

bool tolerance::allows(double expected, double actual) const {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

tolerance default_tolerance(std::string_view dtype) {
  if (dtype == "bfloat16" || dtype == "bf16") return {1.6e-2, 1e-5};
  if (dtype == "float16" || dtype == "fp16" || dtype == "half") return {1e-3, 1e-5};
  if (dtype == "float64" || dtype == "fp64" || dtype == "double") return {1e-7, 1e-7};
  return {1.3e-6, 1e-5};
}

bool path_matches(std::string_view glob, std::string_view path) {
  if (glob.empty()) return path.empty();
  if (glob.substr(0, 2) == "**") {
    for (std::size_t skip = 0; skip <= path.size(); ++skip) {
      if (path_matches(glob.substr(2), path.substr(skip))) return true;
    }
    return false;
  }
  if (glob[0] == '*') {
    for (std::size_t skip = 0; skip <= path.size(); ++skip) {
      if (path_matches(glob.substr(1), path.substr(skip))) return true;
      if (skip < path.size() && path[skip] == '.') break;
    }
    return false;
  }
  return !path.empty() && glob[0] == path[0] && path_matches(glob.substr(1), path.substr(1));
}

tolerance_policy tolerance_policy::from_json(const nlohmann::json& tolerances, const std::string& where) {
  tolerance_policy policy;
  if (tolerances.is_null()) return policy;
  if (!tolerances.is_object()) {
    GRAFT_THROW(snapshot_error, where + ": expected an object {PATH_GLOB: {\"rtol\": R, \"atol\": A}}, got " +
                                    tolerances.dump());
  }
  for (const auto& [glob, entry] : tolerances.items()) {
    const std::string at = where + "." + glob;
    if (!entry.is_object()) GRAFT_THROW(snapshot_error, at + ": expected {\"rtol\": R, \"atol\": A}, got " + entry.dump());
    tolerance tol;
    for (const auto& [key, value] : entry.items()) {
      if (key != "rtol" && key != "atol") {
        GRAFT_THROW(snapshot_error, at + "." + key + ": unknown key; a tolerance has \"rtol\" and \"atol\"");
      }
      if (!value.is_number() || value.get<double>() < 0) {
        GRAFT_THROW(snapshot_error, at + "." + key + ": expected a number >= 0, got " + value.dump());
      }
      (key == "rtol" ? tol.rtol : tol.atol) = value.get<double>();
    }
    policy.rules_.push_back({glob, tol});
  }
  return policy;
}

tolerance tolerance_policy::for_path(std::string_view path, std::string_view dtype) const {
  const rule* best = nullptr;
  for (const auto& r : rules_) {
    if (path_matches(r.glob, path) && (best == nullptr || r.glob.size() > best->glob.size())) best = &r;
  }
  return best != nullptr ? best->tol : default_tolerance(dtype);
}

}  // namespace graft::harness
