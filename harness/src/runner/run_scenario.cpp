#include <graft/harness/runner.hpp>

#include <chrono>
#include <fstream>
#include <system_error>

#include <graft/ascii_lower.hpp>
#include <graft/harness/expectations.hpp>
#include <graft/harness/process.hpp>
#include <graft/harness/snapshot.hpp>
#include <graft/harness/snapshot_store.hpp>
#include <graft/harness/worker_protocol.hpp>

#include "runner/worker_launch.hpp"

namespace graft::harness {

namespace {

constexpr std::size_t kLogTailLines = 15;

std::string indent(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += "    " + text.substr(start, end == std::string::npos ? std::string::npos : end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

nlohmann::json read_result(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json parsed = nlohmann::json::parse(in, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json() : parsed;
}

struct play_outcome {
  std::vector<std::string> problems;  // what makes the run an error (or a hang)
  bool hung = false;                  // some worker was still running at the deadline
};

// Starts every rank of every side that is not absent and waits for them
// within the scenario's timeout.
play_outcome play(const scenario& s, const runner_options& options, const std::vector<worker_files>& files,
                  const scenario_ports& ports, std::chrono::steady_clock::time_point started) {
  play_outcome outcome;
  const std::vector<std::string> env = worker_environment(options, s.backend() == "nccl");
  std::vector<child_process> processes;
  processes.reserve(files.size());
  for (const auto& f : files) processes.emplace_back(worker_argv(s, options, f, ports), env, f.log());
  const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(s.timeout_s));
  if (!wait_all(processes, deadline)) {
    std::string killed;
    for (std::size_t i = 0; i < processes.size(); ++i) {
      if (!processes[i].running()) continue;
      processes[i].kill();
      killed += (killed.empty() ? "" : ", ") + files[i].stem();
    }
    outcome.hung = true;
    outcome.problems.push_back("timed out after " + std::to_string(static_cast<int>(s.timeout_s)) +
                               " s (the scenario's timeout_s); killed " + killed);
  }
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const std::string status = processes[i].describe_status();
    if (status == "exit 0") continue;
    const nlohmann::json result = read_result(files[i].result());
    const bool has_error = result.is_object() && result.contains("error") && result["error"].is_string();
    outcome.problems.push_back(files[i].stem() + " " + status + ": " +
                               (has_error ? result["error"].get<std::string>()
                                          : "log " + files[i].log().string() + " ends:\n" +
                                                indent(tail_of_file(files[i].log(), kLogTailLines))));
  }
  return outcome;
}

}  // namespace

std::string_view to_string(scenario_result::status s) {
  switch (s) {
    case scenario_result::status::pass: return "pass";
    case scenario_result::status::fail: return "FAIL";
    case scenario_result::status::skip: return "SKIP";
    case scenario_result::status::error: return "ERROR";
    case scenario_result::status::hang: return "HANG";
    case scenario_result::status::not_applicable: return "N/A";
  }
  return "?";
}

std::string result_name(scenario_result::status s) {
  if (s == scenario_result::status::not_applicable) return "not_applicable";
  return ascii_lower(std::string(to_string(s)));
}

namespace {

// Compares with the golden, or, for a scenario without one, only writes the
// latest snapshot; adds what is wrong to r.
void check_scenario_snapshot(const scenario& s, const runner_options& options, const nlohmann::json& snapshot,
                             scenario_result& r) {
  const snapshot_dirs dirs{options.fixtures / "snapshots", options.reports / "snapshots"};
  if (!s.golden) {
    std::filesystem::create_directories(dirs.output);
    write_snapshot(dirs.actual_path(s.name), snapshot);
    if (std::filesystem::exists(dirs.golden_path(s.name))) {
      r.problems.push_back("the scenario says \"golden\": false, yet " + dirs.golden_path(s.name).string() +
                           " exists; delete it, or remove \"golden\": false to compare with it");
    }
    r.note = "expectations only (no golden)";
    return;
  }
  const snapshot_check check = check_snapshot(dirs, s.name, snapshot, options.ci);
  if (check.outcome != snapshot_check::status::match) r.problems.push_back(check.message());
  if (check.outcome == snapshot_check::status::new_snapshot) r.note = "new snapshot, needs review";
  if (check.outcome == snapshot_check::status::mismatch) {
    r.note = "snapshot differs";
    // Beside the run's logs, where the report page (report_page.hpp) and a
    // person find it.
    const std::filesystem::path diff = options.reports / "runs" / s.name / "diff.txt";
    std::ofstream out(diff, std::ios::binary | std::ios::trunc);
    out << check.message() << "\n";
    if (!out) r.problems.push_back(diff.string() + ": cannot write the snapshot diff there");
  }
  if (check.outcome == snapshot_check::status::missing_in_ci) r.note = "golden missing (CI)";
}

}  // namespace

scenario_result run_scenario(const scenario& s, const runner_options& options) {
  const auto started = std::chrono::steady_clock::now();
  scenario_result r;
  r.name = s.name;
  try {
    const std::filesystem::path folder = options.reports / "runs" / s.name;
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    std::filesystem::create_directories(folder);
    if (const auto reason = not_applicable_reason(s, options.grafter)) {
      r.outcome = scenario_result::status::not_applicable;
      r.problems.push_back(*reason);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return r;
    }
    if (s.cuda_ranks() > 0) {
      const device_inventory have =
          options.devices ? *options.devices : probe_devices(options.worker, folder, kDeviceProbeLimit);
      if (const auto reason = unmet_device_needs(s, have)) {
        r.outcome = scenario_result::status::skip;
        r.problems.push_back(*reason);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        return r;
      }
    }
    std::vector<worker_files> files;
    for (graft::role side : {graft::role::baseline, graft::role::target}) {
      if (s.is_absent(side)) continue;
      for (int rank = 0; rank < s.world_size(side); ++rank) files.push_back({folder, side, rank});
    }
    scenario_ports ports{free_port()};
    if (options.grafter != grafter_kind::cpp) ports.baseline_side = free_port(), ports.target_side = free_port();
    play_outcome played = play(s, options, files, ports, started);
    r.problems = std::move(played.problems);
    if (played.hung) {
      r.outcome = scenario_result::status::hang;
    } else if (!r.problems.empty()) {
      r.outcome = scenario_result::status::error;
    } else {
      worker_results results;
      snapshot_input input{s.name, s.baseline_world_size, s.target_world_size, s.tolerances, {}};
      for (const auto& f : files) {
        results[{f.side, f.rank}] = read_result(f.result());
        for (auto& e : read_jsonl(f.events())) input.events.push_back(std::move(e));
      }
      const bool events = emits_graft_events(options.grafter);
      r.problems = check_expectations(s, results, events);
      if (events) {
        check_scenario_snapshot(s, options, make_snapshot(input, {{ports.graft}}), r);
      } else {
        r.note = "values and bytes only: " + std::string(display_name(options.grafter)) + " emits no graft events";
      }
      r.outcome = r.problems.empty() ? scenario_result::status::pass : scenario_result::status::fail;
    }
  } catch (const std::exception& e) {
    r.outcome = scenario_result::status::error;
    r.problems.push_back(e.what());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace graft::harness
