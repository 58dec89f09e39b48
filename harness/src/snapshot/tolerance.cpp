#include <graft/harness/tolerance.hpp>

#include <cmath>
#include <vector>

#include <graft/harness/errors.hpp>

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
  // One pass over the glob, keeping which prefixes of path the glob read so
  // far matches: time glob x path whatever the stars, where trying every
  // split for every star took exponential time ("**a**a**a**b" against a long
  // path of a's) and recursed once per character.
  std::vector<char> matched(path.size() + 1, 0);  // matched[j]: path[0, j)
  std::vector<char> next(path.size() + 1, 0);
  matched[0] = 1;
  for (std::size_t i = 0; i < glob.size();) {
    const bool any_run = glob.compare(i, 2, "**") == 0;
    if (any_run || glob[i] == '*') {
      // A run after any matched prefix; `*` stops at a '.'.
      char reached = 0;
      for (std::size_t j = 0; j <= path.size(); ++j) {
        if (!any_run && j > 0 && path[j - 1] == '.') reached = 0;
        reached = reached || matched[j];
        next[j] = reached;
      }
      i += any_run ? 2 : 1;
    } else {
      next[0] = 0;
      for (std::size_t j = 0; j < path.size(); ++j) next[j + 1] = matched[j] && path[j] == glob[i];
      ++i;
    }
    matched.swap(next);
  }
  return matched[path.size()] != 0;
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
