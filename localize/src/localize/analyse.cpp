#include <graft/localize/report.hpp>

#include <cmath>
#include <map>

namespace graft::harness::localize {

namespace {

std::map<std::string, const measured_point*> by_key(const pass_measurements* pass) {
  std::map<std::string, const measured_point*> out;
  if (pass == nullptr) return out;
  for (const auto& p : pass->points) out.emplace(p.key, &p);
  return out;
}

std::optional<double> floor_of(const std::map<std::string, const measured_point*>& calibration,
                               const std::string& key) {
  const auto it = calibration.find(key);
  if (it == calibration.end()) return std::nullopt;
  return it->second->value.rel_diff;
}

// NaN breaks every tolerance; a measurement exactly at the threshold passes.
bool breaks(const measurement& m, const threshold& t) { return std::isnan(m.rel_diff) || m.rel_diff > t.rel_diff; }

}  // namespace

localize_report analyse(const pass_measurements& accumulated, const pass_measurements& local,
                        const pass_measurements* calibration_accumulated, const pass_measurements* calibration_local,
                        const tolerance_policy& policy) {
  localize_report report;
  report.calibrated = calibration_accumulated != nullptr && calibration_local != nullptr;
  for (const auto* pass : {&accumulated, &local, calibration_accumulated, calibration_local}) {
    if (pass != nullptr) report.problems.insert(report.problems.end(), pass->problems.begin(), pass->problems.end());
  }

  // Execution order is the accumulated pass's; points only the local pass saw follow.
  const auto calibration_acc = by_key(calibration_accumulated);
  const auto calibration_loc = by_key(calibration_local);
  std::map<std::string, std::size_t> index_of;
  const auto add = [&](const measured_point& p) {
    if (index_of.count(p.key) != 0) return;
    index_of.emplace(p.key, report.points.size());
    point_result r;
    r.key = p.key;
    r.name = p.name;
    r.label = p.label;
    r.layer_id = p.layer_id;
    report.points.push_back(std::move(r));
  };
  for (const auto& p : accumulated.points) add(p);
  for (const auto& p : local.points) add(p);

  for (const auto& p : accumulated.points) report.points[index_of.at(p.key)].accumulated = p.value;
  for (const auto& p : local.points) report.points[index_of.at(p.key)].local = p.value;

  for (std::size_t i = 0; i < report.points.size(); ++i) {
    point_result& r = report.points[i];
    if (report.calibrated) {
      r.floor_accumulated = floor_of(calibration_acc, r.key);
      r.floor_local = floor_of(calibration_loc, r.key);
    }
    if (r.accumulated) {
      r.accumulated_threshold = policy.threshold_for(r.name, r.label, r.accumulated->own_dtype,
                                                     r.accumulated->other_dtype, r.floor_accumulated);
      r.accumulated_breaks = breaks(*r.accumulated, *r.accumulated_threshold);
      if (r.accumulated_breaks && !report.accumulated_first) report.accumulated_first = i;
    }
    if (r.local) {
      r.local_threshold =
          policy.threshold_for(r.name, r.label, r.local->own_dtype, r.local->other_dtype, r.floor_local);
      r.local_breaks = breaks(*r.local, *r.local_threshold);
    }
    if (!r.local) {
      r.verdict = "missing";
    } else if (r.local_breaks) {
      r.verdict = "diverges";
      if (!report.culprit) report.culprit = i;
    } else {
      r.verdict = r.accumulated_breaks ? "inherited" : "ok";
    }
  }
  return report;
}

}  // namespace graft::harness::localize
