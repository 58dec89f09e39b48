#pragma once
// One rank's part of a scenario: build its grafter, make its dump calls in
// order, and report what happened (worker_protocol.hpp).

#include <filesystem>

#include <nlohmann/json.hpp>

#include <graft/harness/scenario.hpp>
#include <graft/harness/worker_protocol.hpp>

namespace graft::harness::worker {

struct rank_assignment {
  worker_files files;
  int port = 0;
  std::filesystem::path plugins;
};

// The worker result document. Never throws: a failure to play is the
// document's "error".
nlohmann::json play_rank(const scenario& s, const rank_assignment& assignment);

}  // namespace graft::harness::worker
