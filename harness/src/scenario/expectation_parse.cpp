#include "scenario/parsers.hpp"

namespace graft::harness::detail {

namespace {

const std::vector<std::string>& step_outcomes() {
  static const std::vector<std::string> outcomes = {"sent",        "send_skipped", "grafted",
                                                    "skipped",     "none",         "non_tensor",
                                                    "desync",      "group_error",  "filter_conflict"};
  return outcomes;
}

const std::vector<std::string>& setup_outcomes() {
  static const std::vector<std::string> outcomes = {"transform_load", "config_error", "none"};
  return outcomes;
}

std::optional<value_relation> parse_relation(const nlohmann::json& value, const std::string& path,
                                             json_checker& check) {
  if (!check.is_object(value, path)) return std::nullopt;
  check.known_keys(value, path, {"of", "rank", "scale", "offset"});
  value_relation relation;
  const auto side = check.choice(value, "of", path, {"baseline", "target"}, true);
  if (side) relation.side = *side == "baseline" ? graft::role::baseline : graft::role::target;
  if (auto rank = check.integer_in(value, "rank", path, false, 0, kMaxScenarioWorldSize - 1)) {
    relation.rank = static_cast<int>(*rank);
  }
  relation.scale = check.number(value, "scale", path, false).value_or(1);
  relation.offset = check.number(value, "offset", path, false).value_or(0);
  return relation;
}

}  // namespace

std::optional<expectation> parse_expectation(const nlohmann::json& value, const std::string& path, bool setup,
                                             json_checker& check) {
  if (!check.is_object(value, path)) return std::nullopt;
  if (setup) {
    check.known_keys(value, path, {"outcome", "error_kind", "message_contains"});
  } else {
    check.known_keys(value, path, {"outcome", "error_kind", "message_contains", "values", "exact", "equals",
                                   "unchanged", "dtype", "rtol", "atol"});
  }
  expectation e;
  e.outcome = check.choice(value, "outcome", path, setup ? setup_outcomes() : step_outcomes(), false);
  e.error_kind = check.string(value, "error_kind", path, false);
  if (value.contains("message_contains")) {
    const auto& m = value["message_contains"];
    const std::string at = json_checker::key_path(path, "message_contains");
    if (m.is_string()) {
      e.message_contains.push_back(m.get<std::string>());
    } else if (m.is_array()) {
      for (std::size_t i = 0; i < m.size(); ++i) {
        if (m[i].is_string()) e.message_contains.push_back(m[i].get<std::string>());
        else check.add(json_checker::index_path(at, i), "expected a string, got " + json_checker::describe(m[i]));
      }
    } else {
      check.add(at, "expected a string or an array of strings, got " + json_checker::describe(m));
    }
  }
  if (value.contains("values") && check_value_list(value["values"], json_checker::key_path(path, "values"), check)) {
    e.values = value["values"];
  }
  if (value.contains("equals")) e.relation = parse_relation(value["equals"], json_checker::key_path(path, "equals"), check);
  e.unchanged = check.boolean(value, "unchanged", path).value_or(false);
  e.exact = check.boolean(value, "exact", path).value_or(false);
  if (e.exact && !value.contains("values")) {
    check.add(json_checker::key_path(path, "exact"), "only meaningful with \"values\"");
  }
  if (e.exact && (value.contains("rtol") || value.contains("atol"))) {
    check.add(json_checker::key_path(path, "exact"), "compares bits: leave out \"rtol\" and \"atol\"");
  }
  e.dtype = check.choice(value, "dtype", path, scenario_dtypes(), false);
  for (const char* key : {"rtol", "atol"}) {
    if (auto v = check.number(value, key, path, false)) {
      if (*v < 0) check.add(json_checker::key_path(path, key), "expected a number >= 0");
      (std::string(key) == "rtol" ? e.rtol : e.atol) = *v;
    }
  }
  const int value_checks = (value.contains("values") ? 1 : 0) + (value.contains("equals") ? 1 : 0) + (e.unchanged ? 1 : 0);
  if (value_checks > 1) check.add(path, "use at most one of \"values\", \"equals\", \"unchanged\"");
  if (value.contains("error_kind") && e.outcome && *e.outcome != "skipped" && *e.outcome != "transform_load") {
    check.add(json_checker::key_path(path, "error_kind"),
              "only meaningful with outcome \"skipped\" or \"transform_load\", not \"" + *e.outcome + "\"");
  }
  return e;
}

}  // namespace graft::harness::detail
