#include <graft/localize/points.hpp>

#include <cmath>
#include <limits>
#include <map>

namespace graft::harness::localize {

namespace {

// Kinds that are part of a healthy pass and carry no measurement.
bool routine(const std::string& kind) { return kind == "group_init" || kind == "send"; }

std::string dtype_of(const nlohmann::json& e, const char* field) {
  const auto it = e.find(field);
  if (it == e.end() || !it->is_object() || !it->contains("dtype") || !(*it)["dtype"].is_string()) return "";
  return (*it)["dtype"].get<std::string>();
}

// NaN sorts above everything: a NaN on any rank is the worst rank.
bool worse(double a, double b) { return std::isnan(a) ? !std::isnan(b) : (!std::isnan(b) && a > b); }

}  // namespace

double metric_number(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    if (s == "Inf") return std::numeric_limits<double>::infinity();
    if (s == "-Inf") return -std::numeric_limits<double>::infinity();
    if (s == "-0.0") return -0.0;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

pass_measurements measure(const pass_outcome& outcome) {
  pass_measurements out;
  out.label = outcome.label;
  out.problems = outcome.problems;
  std::map<std::string, std::size_t> index_of;            // key -> position in out.points
  std::map<std::pair<int, std::string>, int> occurrences;  // (rank, tags) -> calls so far

  for (const auto& e : outcome.target_events) {
    const std::string kind = e.value("kind", "");
    const bool grafted = kind == "recv_grafted";
    if (routine(kind)) continue;
    if (kind != "compare" && !grafted) {
      out.problems.push_back(outcome.label + ": target rank " + std::to_string(e.value("rank", -1)) + " " + kind +
                             ": " + e.value("message", std::string("(no message)")));
      continue;
    }
    const nlohmann::json tags = e.value("tags", nlohmann::json::object());
    const std::string tags_text = tags.dump();
    const int occurrence = occurrences[{e.value("rank", 0), tags_text}]++;

    measured_point p;
    p.key = tags_text + "#" + std::to_string(occurrence);
    p.tags = tags;
    p.name = tags.value("name", std::string());
    if (tags.contains("layer_id") && tags["layer_id"].is_number_integer()) {
      p.layer_id = tags["layer_id"].get<std::int64_t>();
    }
    p.label = p.layer_id ? p.name + "[" + std::to_string(*p.layer_id) + "]" : p.name;
    if (occurrence > 0) p.label += "#" + std::to_string(occurrence);
    const nlohmann::json metrics = e.value("metrics", nlohmann::json::object());
    p.value.rel_diff = metric_number(metrics.value("rel_diff", nlohmann::json()));
    p.value.max_abs = metric_number(metrics.value("max_abs", nlohmann::json()));
    p.value.own_dtype = dtype_of(e, "before");
    p.value.other_dtype = dtype_of(e, "candidate");
    p.value.grafted = grafted;

    const auto found = index_of.find(p.key);
    if (found == index_of.end()) {
      index_of.emplace(p.key, out.points.size());
      out.points.push_back(std::move(p));
    } else if (worse(p.value.rel_diff, out.points[found->second].value.rel_diff)) {
      out.points[found->second].value = p.value;
    }
  }
  return out;
}

}  // namespace graft::harness::localize
