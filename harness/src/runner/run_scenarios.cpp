#include <graft/harness/runner.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include <graft/harness/json_format.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/version.hpp>

namespace graft::harness {

std::vector<scenario_result> run_scenarios(
    const std::vector<scenario>& scenarios, const runner_options& options,
    const std::function<void(std::size_t, std::size_t, const scenario_result&)>& on_done) {
  std::vector<scenario_result> results(scenarios.size());
  // One question to the worker serves every scenario; when it cannot be
  // answered, each scenario that needed it reports why.
  runner_options shared = options;
  const bool any_cuda =
      std::any_of(scenarios.begin(), scenarios.end(), [](const scenario& s) { return s.cuda_ranks() > 0; });
  if (any_cuda && !shared.devices) {
    try {
      shared.devices = probe_devices(options.worker, options.reports / "runs" / ".devices", kDeviceProbeLimit);
    } catch (const std::exception&) {
      shared.devices.reset();
    }
  }
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < scenarios.size(); i = next++) {
      scenario_result r = run_scenario(scenarios[i], shared);
      std::lock_guard<std::mutex> lock(mutex);
      results[i] = std::move(r);
      if (on_done) on_done(++done, scenarios.size(), results[i]);
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(options.jobs, 1)), 1,
                                                      std::max<std::size_t>(scenarios.size(), 1));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return results;
}

std::string summary_table(const std::vector<scenario_result>& results) {
  std::size_t width = 8;
  for (const auto& r : results) width = std::max(width, r.name.size());
  auto pad = [](std::string s, std::size_t n) { return s.size() < n ? s + std::string(n - s.size(), ' ') : s; };
  std::string out = pad("scenario", width) + "  result  time     note\n" + std::string(width + 32, '-') + "\n";
  std::size_t pass = 0, fail = 0, skip = 0, error = 0, hang = 0, not_applicable = 0;
  for (const auto& r : results) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%6.1f s", r.seconds);
    std::string note = r.note;
    if (note.empty() && !r.problems.empty()) {
      note = r.problems.front().substr(0, r.problems.front().find('\n'));
      if (note.size() > 70) note = note.substr(0, 67) + "...";
    }
    out += pad(r.name, width) + "  " + pad(std::string(to_string(r.outcome)), 6) + "  " + seconds + "  " + note + "\n";
    switch (r.outcome) {
      case scenario_result::status::pass: ++pass; break;
      case scenario_result::status::fail: ++fail; break;
      case scenario_result::status::skip: ++skip; break;
      case scenario_result::status::error: ++error; break;
      case scenario_result::status::hang: ++hang; break;
      case scenario_result::status::not_applicable: ++not_applicable; break;
    }
  }
  out += std::to_string(results.size()) + " scenario" + (results.size() == 1 ? "" : "s") + ": " +
         std::to_string(pass) + " passed, " + std::to_string(fail) + " failed, " + std::to_string(error) +
         " errors, " + std::to_string(skip) + " skipped" +
         (hang ? ", " + std::to_string(hang) + " hung" : std::string()) +
         (not_applicable ? ", " + std::to_string(not_applicable) + " not applicable" : std::string()) + "\n";
  // Loud: a skipped scenario checked nothing, and its reason says what it needs.
  for (const auto& r : results) {
    if (r.outcome == scenario_result::status::skip) {
      out += "SKIPPED " + r.name + ": " + (r.problems.empty() ? std::string("no reason given") : r.problems.front()) +
             "\n";
    }
  }
  return out;
}

int run_exit_code(const std::vector<scenario_result>& results) {
  bool all_skipped = !results.empty();
  for (const auto& r : results) {
    switch (r.outcome) {
      case scenario_result::status::fail:
      case scenario_result::status::error:
      case scenario_result::status::hang: return 1;
      case scenario_result::status::pass: all_skipped = false; break;
      case scenario_result::status::skip:
      case scenario_result::status::not_applicable: break;
    }
  }
  return all_skipped ? kExitAllSkipped : 0;
}

nlohmann::json summary_json(const std::vector<scenario_result>& results) {
  nlohmann::json doc = {{"schema_version", 1}, {"graft_version", version()}, {"scenarios", nlohmann::json::array()}};
  for (const auto& r : results) {
    doc["scenarios"].push_back({{"name", r.name},
                                {"result", result_name(r.outcome)},
                                {"problems", r.problems},
                                {"note", r.note},
                                {"seconds", r.seconds}});
  }
  return doc;
}

void write_summary(const std::filesystem::path& path, const std::vector<scenario_result>& results) {
  write_snapshot(path, summary_json(results));
}

}  // namespace graft::harness
