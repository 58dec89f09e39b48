#include "runner/worker_launch.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>

#include <graft/error.hpp>
#include <graft/harness/json_format.hpp>
#include <graft/harness/process.hpp>

namespace graft::harness {

namespace {

// Plain JSON, as the worker's result: every number as the shortest text that
// reads back to the same double, NaN and the infinities as strings.
void write_plan(const std::filesystem::path& path, const nlohmann::json& plan) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << encode_special_floats(plan).dump(1) << "\n";
  if (!out) GRAFT_THROW(error, path.string() + ": cannot write the worker's plan there");
}

// python -m graft.scenario_worker's --grafter for a Python kind.
std::string scenario_worker_grafter(grafter_kind kind) { return kind == grafter_kind::sglang ? "sglang" : "graft"; }

}  // namespace

std::vector<std::string> worker_argv(const scenario& s, const runner_options& options, const worker_files& f,
                                     const scenario_ports& ports) {
  if (options.grafter == grafter_kind::cpp) {
    return {options.worker.string(),
            "--scenario", std::filesystem::absolute(s.path).string(),
            "--role", std::string(to_string(f.side)),
            "--rank", std::to_string(f.rank),
            "--port", std::to_string(ports.graft),
            "--out", f.folder.string(),
            "--plugins", options.plugins.string()};
  }
  const int side_port = f.side == graft::role::baseline ? ports.baseline_side : ports.target_side;
  write_plan(f.plan(), rank_plan(s, f, ports.graft, side_port, options.plugins));
  return {options.python.string(), "-m", "graft.scenario_worker", "--plan", f.plan().string(),
          "--grafter", scenario_worker_grafter(options.grafter)};
}

std::vector<std::string> worker_environment(const runner_options& options, bool nccl) {
  // Scenarios name their plugins themselves; a user's plugin path must not
  // change what loads, nor graft's sglang switch which grafter sglang runs.
  std::vector<std::string> env = environment_without({"GRAFT_PLUGIN_PATH", "TORCH_NCCL_BLOCKING_WAIT",
                                                      "NCCL_BLOCKING_WAIT", "GRAFT_SGLANG", "PYTHONPATH"});
  if (nccl) {
    // A host that chooses NCCL runs in torch's blocking-wait mode, which
    // graft requires (docs/gpu.md); libtorch before 2.2 reads only
    // the second name.
    env.push_back("TORCH_NCCL_BLOCKING_WAIT=1");
    env.push_back("NCCL_BLOCKING_WAIT=1");
  }
  std::string python_path = options.grafter == grafter_kind::cpp ? "" : options.python_package.string();
  if (const char* inherited = std::getenv("PYTHONPATH"); inherited && *inherited) {
    python_path += (python_path.empty() ? "" : ":") + std::string(inherited);
  }
  if (!python_path.empty()) env.push_back("PYTHONPATH=" + python_path);
  return env;
}

std::optional<std::string> python_worker_problem(const runner_options& options) {
  if (options.grafter == grafter_kind::cpp) return std::nullopt;
  constexpr auto kCheckLimit = std::chrono::seconds(120);
  const std::string kind(to_string(options.grafter));
  const std::string who = "--python " + options.python.string() + ": graft's scenario worker for " +
                          std::string(display_name(options.grafter));
  try {
    const std::filesystem::path log = options.reports / "runs" / (".python-" + kind + ".log");
    std::filesystem::create_directories(log.parent_path());
    std::vector<child_process> check;
    check.emplace_back(std::vector<std::string>{options.python.string(), "-m", "graft.scenario_worker", "--check",
                                                "--grafter", scenario_worker_grafter(options.grafter)},
                       worker_environment(options, false), log);
    if (!wait_all(check, std::chrono::steady_clock::now() + kCheckLimit)) {
      check.front().kill();
      return who + " did not answer within " + std::to_string(kCheckLimit.count()) + " s; its log: " + log.string();
    }
    const std::string status = check.front().describe_status();
    if (status == "exit 0") return std::nullopt;
    return who + " cannot start (" + status + "):\n" + tail_of_file(log, 10);
  } catch (const std::exception& e) {
    return who + " cannot start: " + e.what();
  }
}

}  // namespace graft::harness
