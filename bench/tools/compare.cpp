#include "compare.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "render.hpp"
#include "results.hpp"
#include "targets.hpp"

namespace graft_bench {
namespace {

// What is compared for one benchmark of one run, with its relative noise.
struct measure {
  double value = 0;
  bool is_ratio = false;
  std::optional<double> noise;
  bool is_floor = false;  // a floor's time says how fast the machine was, not graft
};

std::map<std::string, measure> measures(const std::map<std::string, result>& results) {
  std::map<std::string, measure> out;
  for (const auto& [name, r] : results) {
    const case_spec* spec = spec_for_variant(r.variant);
    if (r.error.empty()) out[name] = {r.median_ns, false, r.cv, spec != nullptr && spec->floor == r.variant};
  }
  for (const row& r : build_rows(results)) {
    if (r.ratio) out[r.measured->name] = {*r.ratio, true, r.noise, false};
  }
  return out;
}

std::string percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", v * 100);
  return buffer;
}

std::string value_text(const measure& m) {
  if (!m.is_ratio) return time_text(m.value);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3fx", m.value);
  return buffer;
}

// Conditions that change figures by design; a difference is reported, not
// judged (the table still compares every benchmark).
void note_condition_changes(const run_context& base, const run_context& fresh, std::ostream& out) {
  static const char* const kConditions[] = {"graft_cpu_pass_threads", "graft_build_type", "num_cpus"};
  for (const char* key : kConditions) {
    const auto b = base.find(key);
    const auto n = fresh.find(key);
    if (b == base.end() || n == fresh.end() || b->second == n->second) continue;
    out << "Note: the runs differ in " << key << " (base " << b->second << ", new " << n->second
        << "); changes may come from that alone.\n";
  }
}

}  // namespace

int compare_runs(const std::string& base_path, const std::string& new_path, const compare_options& options,
                 std::ostream& out) {
  const std::vector<bench_file> runs = read_files({base_path, new_path});
  const auto base = measures(merge_results({runs[0]}));
  const auto fresh = measures(merge_results({runs[1]}));
  int regressions = 0, noisy = 0, compared = 0, lost = 0;
  out << "| benchmark | measure | base | new | change | noise | verdict |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& [name, b] : base) {
    const auto it = fresh.find(name);
    const bool comparable = it != fresh.end() && it->second.is_ratio == b.is_ratio;
    if (!comparable) {
      // Gone from NEW, failed there, or lost its floor: a gate that skipped
      // it would let a broken benchmark through. Floors are not judged.
      if (b.is_floor) continue;
      ++lost;
      out << "| " << name << " | " << (b.is_ratio ? "ratio to floor" : "median time") << " | " << value_text(b)
          << " | - | - | - | **LOST** ("
          << (it == fresh.end() ? "missing or failed in new" : "its floor is missing in one run") << ") |\n";
      continue;
    }
    const measure& n = it->second;
    ++compared;
    const double change = n.value / b.value - 1;
    std::optional<double> noise;
    if (b.noise && n.noise) noise = std::hypot(*b.noise, *n.noise);
    std::string verdict = "same";
    if (b.is_floor) {
      verdict = "floor (machine speed; not judged)";
    } else if (change > options.threshold) {
      if (noise && change <= 2 * *noise) {
        verdict = "too noisy to tell";
        ++noisy;
      } else {
        verdict = noise ? "**REGRESSION**" : "**REGRESSION** (noise unknown: no repetitions)";
        ++regressions;
      }
    } else if (change < -options.threshold) {
      verdict = "faster";
    }
    out << "| " << name << " | " << (b.is_ratio ? "ratio to floor" : "median time") << " | " << value_text(b)
        << " | " << value_text(n) << " | " << percent(change) << " | "
        << (noise ? percent(*noise).substr(1) : std::string("-")) << " | " << verdict << " |\n";
  }
  out << "\n" << compared << " compared, threshold " << percent(options.threshold).substr(1) << ": "
      << regressions << " regression(s), " << noisy << " too noisy to tell, " << lost
      << " lost (in base, not comparable in new).\n";
  if (compared == 0) out << "No benchmark is in both runs with the same measure.\n";
  note_condition_changes(runs[0].context, runs[1].context, out);
  return regressions > 0 || lost > 0 ? 1 : 0;
}

}  // namespace graft_bench
