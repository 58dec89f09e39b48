#pragma once
// What passes between the runner and a worker process (one rank of a
// scenario): the command line, and the files the worker leaves in the run
// folder. The result file is JSON:
//
//   { "schema_version": 1, "role": "target", "local_rank": 0, "graft_rank": 1,
//     "error": null | "why the worker could not play its part",
//     "setup": {"events": [EV...]},          // events of grafter construction
//     "steps": [ {"ran": bool, "events": [EV...],
//                 "initial": TV | null, "final": TV | null} ... ] }
//   EV = {"kind": K, "error_kind": E?, "message": M?}
//   TV = {"dtype": "float32", "shape": [3], "values": [flat, "NaN" encoded]}
//
// `graft_worker --probe-devices FILE` plays nothing: it writes which devices
// it offers to FILE (device_needs.hpp), for the runner to skip a scenario
// whose CUDA ranks this machine or build cannot serve.

#include <filesystem>
#include <string>

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
};

// "double:double_it" -> "<plugins>/libgraft_double_transform.so:double_it": a
// LIBRARY part without '/' or '.' (and not "builtin") is a sample plugin's
// short name. Anything else is returned unchanged.
std::string resolve_transform_spec(const std::string& spec, const std::filesystem::path& plugins_dir);

}  // namespace graft::harness
