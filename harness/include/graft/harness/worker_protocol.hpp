#pragma once
// What passes between the runner and a worker process (one rank of a
// scenario): the command line, and the files the worker leaves in the run
// folder. The result file is JSON:
//
//   { "schema_version": 1, "role": "target", "local_rank": 0, "graft_rank": 1,
//     "error": null | "why the worker could not play its part",
//     "setup": {"events": [EV...]},          // events of grafter construction
//     "steps": [ {"ran": bool, "events": [EV...],
//                 "initial": TV | null, "final": TV | null,
//                 "raised": "what escaped the grafter into the host"?} ... ] }
//   (a step that raised is the rank's last: a host would not go on)
//   EV = {"kind": K, "error_kind": E?, "message": M?}
//   TV = {"dtype": "float32", "shape": [3], "values": [flat, "NaN" encoded]}
//
// The Python workers (grafter_kind.hpp) parse no scenario: the runner writes
// each rank a plan, FOLDER/<stem>.plan.json (rank_plan below), and starts
// `PYTHON -m graft.scenario_worker --plan FILE --grafter graft|sglang`, which
// leaves the same result and events files.
//
// `graft_worker --probe-devices FILE` plays nothing: it writes which devices
// it offers to FILE (device_needs.hpp), for the runner to skip a scenario
// whose CUDA ranks this machine or build cannot serve.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include <graft/harness/scenario.hpp>
#include <graft/role.hpp>

namespace graft::harness {

inline constexpr int kWorkerResultSchemaVersion = 1;

struct worker_files {
  std::filesystem::path folder;
  graft::role side = graft::role::baseline;
  int rank = 0;

  std::string stem() const;  // "baseline-0"
  std::filesystem::path events() const { return folder / (stem() + ".events.jsonl"); }
  std::filesystem::path result() const { return folder / (stem() + ".result.json"); }
  std::filesystem::path log() const { return folder / (stem() + ".log"); }
  std::filesystem::path plan() const { return folder / (stem() + ".plan.json"); }
};

// The graft exchange timeout of a scenario that sets none, in seconds.
inline constexpr double kDefaultWorkerGraftTimeout = 30;

// The grafter settings (graft_config JSON) a rank of `side` plays with: the
// scenario's, enabled, with the runner's address, port and world sizes and
// the sample plugins' short names resolved.
nlohmann::json worker_grafter_settings(const scenario& s, graft::role side, int port,
                                       const std::filesystem::path& plugins_dir);

// One rank's whole part, resolved, for a worker that reads no scenario:
//   { "schema_version": 1, "scenario": NAME, "role", "local_rank", "graft_rank",
//     "world": {"baseline": B, "target": T}, "device": "cpu",
//     "grafter": worker_grafter_settings(...),
//     "side_port": P,      // the side's own default group (127.0.0.1:P)
//     "steps": [ {"step": NAME, "runs": bool, "name": CALL NAME, "tags": {...},
//                 "var": VAR, "tensor": SPEC | null, "non_tensor": TYPE | null,
//                 "extras": JSON} ... ] }
//   SPEC = {"source": "values|fill|arange|random|from", "dtype": D | null,
//           "shape": [...], "values", "fill", "start", "step", "seed",
//           "distribution", "from", "scale", "offset", "layout"}
nlohmann::json rank_plan(const scenario& s, const worker_files& f, int port, int side_port,
                         const std::filesystem::path& plugins_dir);

// "double:double_it" -> "<plugins>/libgraft_double_transform.so:double_it": a
// LIBRARY part without '/' or '.' (and not "builtin") is a sample plugin's
// short name. Anything else is returned unchanged.
std::string resolve_transform_spec(const std::string& spec, const std::filesystem::path& plugins_dir);

}  // namespace graft::harness
