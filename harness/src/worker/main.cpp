// graft_worker: plays one rank of a scenario for the runner (graft run). Not
// meant to be started by hand; see worker_protocol.hpp for the contract.
// Exit codes: 0 played (see the result file), 2 bad arguments or scenario,
// 3 the rank could not play its part (the result file says why).
// `graft_worker --probe-devices FILE` only writes which devices it offers.

#include <signal.h>
#include <sys/prctl.h>

#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include <graft/error.hpp>
#include <graft/harness/json_format.hpp>

#include "worker/play_rank.hpp"
#include "worker/rank_device.hpp"

int main(int argc, char** argv) {
  namespace h = graft::harness;
  // A worker never outlives the runner that started it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);

  CLI::App app{"graft_worker: plays one rank of a graft scenario (started by graft run)"};
  std::string scenario_path, role_name, out, plugins, probe_path;
  int rank = 0, port = 0;
  auto* probe = app.add_option("--probe-devices", probe_path,
                               "only write which devices this worker offers (CUDA build, NCCL, device count) to "
                               "this file as JSON, and exit");
  const auto play_option = [&](CLI::Option* o) { o->excludes(probe); };
  play_option(app.add_option("--scenario", scenario_path, "scenario file"));
  play_option(app.add_option("--role", role_name, "baseline or target")->check(CLI::IsMember({"baseline", "target"})));
  play_option(app.add_option("--rank", rank, "local rank on the side"));
  play_option(app.add_option("--port", port, "the graft master port"));
  play_option(app.add_option("--out", out, "folder for the events, result and log files"));
  play_option(app.add_option("--plugins", plugins, "folder of the sample transform plugins"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!probe_path.empty()) {
    std::ofstream answer(probe_path);
    answer << h::format_json(h::worker::device_answer());
    return answer ? 0 : 3;
  }
  for (const char* required : {"--scenario", "--role", "--rank", "--port", "--out", "--plugins"}) {
    if (app.count(required) == 0) {
      std::cerr << required << " is required (or --probe-devices FILE alone)\n";
      return 2;
    }
  }

  h::scenario s;
  try {
    s = h::load_scenario(scenario_path);
  } catch (const graft::error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  const graft::role side = role_name == "baseline" ? graft::role::baseline : graft::role::target;
  if (rank < 0 || rank >= s.world_size(side)) {
    std::cerr << "--rank " << rank << ": the " << role_name << " side has " << s.world_size(side) << " ranks\n";
    return 2;
  }
  const h::worker::rank_assignment assignment{{out, side, rank}, port, plugins};
  const nlohmann::json result = h::worker::play_rank(s, assignment);
  // Plain JSON, not the snapshots' 9 significant digits: every value reaches
  // the runner as the shortest text that reads back to the same double.
  std::ofstream(assignment.files.result())
      << h::encode_special_floats(result).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return result["error"].is_null() ? 0 : 3;
}
