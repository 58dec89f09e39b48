#include "exchange/c10d/layout_agreement.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/error.hpp>

#include "base/json_text.hpp"
#include "exchange/c10d/c10d_errors.hpp"
#include "exchange/c10d/messages.hpp"

namespace graft::detail {
namespace {

constexpr const char* kErrorKey = "layout_error";

std::string layout_key(int graft_rank) { return "layout/" + std::to_string(graft_rank); }
std::string claim_key(int graft_rank) { return "claim/" + std::to_string(graft_rank); }

std::vector<std::uint8_t> to_bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string from_bytes(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "?";
  return buffer.data();
}

nlohmann::json layout_record(const graft_config& config, const rank_layout& layout) {
  return {{"baseline_world_size", layout.baseline_world_size},
          {"target_world_size", layout.target_world_size},
          {"backend", config.backend},
          {"side", std::string(to_string(layout.side))},
          {"local_rank", layout.local_rank},
          {"pid", static_cast<long>(getpid())},
          {"host", host_name()}};
}

bool same_world(const nlohmann::json& a, const nlohmann::json& b) {
  return a.at("baseline_world_size") == b.at("baseline_world_size") &&
         a.at("target_world_size") == b.at("target_world_size") && a.at("backend") == b.at("backend");
}

std::string record_text(int graft_rank, const nlohmann::json& r) {
  return "graft rank " + std::to_string(graft_rank) + " (" + r.at("side").get<std::string>() + " rank " +
         std::to_string(r.at("local_rank").get<int>()) + ", pid " + std::to_string(r.at("pid").get<long>()) +
         " on " + r.at("host").get<std::string>() + ") runs with baseline_world_size=" +
         std::to_string(r.at("baseline_world_size").get<int>()) +
         ", target_world_size=" + std::to_string(r.at("target_world_size").get<int>()) +
         ", backend=" + r.at("backend").get<std::string>();
}

// Every rank that notices a problem posts it, so that ranks still waiting
// fail with the same message instead of timing out.
[[noreturn]] void fail_everywhere(c10d::Store& store, const std::string& message) {
  try {
    store.set(kErrorKey, to_bytes(message));
  } catch (...) {
    // The store may already be gone with rank 0; this rank's own error still says it all.
  }
  GRAFT_THROW(config_error, message);
}

class agreement {
 public:
  agreement(c10d::Store& store, const graft_config& config, const rank_layout& layout,
            std::chrono::steady_clock::time_point deadline)
      : store_(store), config_(config), layout_(layout), deadline_(deadline),
        mine_(layout_record(config, layout)) {}

  void publish() {
    const int me = layout_.graft_rank();
    if (store_.add(claim_key(me), 1) != 1) {
      fail_everywhere(store_, rank_text(layout_, me) + " joined the graft world twice (pid " +
                                  std::to_string(getpid()) + " is the second). Check RANK, WORLD_SIZE " +
                                  "and DUMPER_GRAFTER_ROLE of every process: each graft rank must " +
                                  "be unique");
    }
    store_.set(layout_key(me), to_bytes(json_text(mine_)));
  }

  // Polls rather than blocking in Store::wait: a waiting rank must also notice
  // an error posted by any other rank.
  void await(std::set<int> pending) {
    auto pause = std::chrono::milliseconds(2);
    while (!pending.empty()) {
      if (store_.check({kErrorKey})) GRAFT_THROW(config_error, from_bytes(store_.get(kErrorKey)));
      for (auto it = pending.begin(); it != pending.end();) {
        if (!store_.check({layout_key(*it)})) {
          ++it;
          continue;
        }
        verify(*it, nlohmann::json::parse(from_bytes(store_.get(layout_key(*it)))));
        it = pending.erase(it);
      }
      if (pending.empty()) return;
      if (std::chrono::steady_clock::now() >= deadline_) missing(pending);
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }

 private:
  void verify(int graft_rank, const nlohmann::json& theirs) {
    if (same_world(mine_, theirs)) return;
    fail_everywhere(store_, "the graft world's layout disagrees between processes: " +
                                record_text(layout_.graft_rank(), mine_) + ", but " +
                                record_text(graft_rank, theirs) +
                                ". Set the baseline/target world sizes (DUMPER_GRAFTER_BASELINE_WORLD_SIZE, "
                                "DUMPER_GRAFTER_TARGET_WORLD_SIZE) and the backend to the same values "
                                "for every process of both sides");
  }

  [[noreturn]] void missing(const std::set<int>& pending) const {
    std::string names;
    for (int r : pending) names += (names.empty() ? "" : ", ") + rank_text(layout_, r);
    GRAFT_THROW(timeout_error,
                endpoint_text(config_, layout_) + ": the rendezvous timed out after " +
                    seconds_text(config_.timeout_seconds) + "; never arrived: " + names +
                    ". Check that every process of both sides was started, with the same master_address, "
                    "master_port and group_name, and with baseline_world_size=" +
                    std::to_string(layout_.baseline_world_size) +
                    ", target_world_size=" + std::to_string(layout_.target_world_size));
  }

  c10d::Store& store_;
  const graft_config& config_;
  const rank_layout& layout_;
  std::chrono::steady_clock::time_point deadline_;
  nlohmann::json mine_;
};

}  // namespace

void agree_on_layout(c10d::Store& store, const graft_config& config, const rank_layout& layout,
                     std::chrono::steady_clock::time_point deadline) {
  agreement a(store, config, layout, deadline);
  const int me = layout.graft_rank();
  std::set<int> others;
  for (int r = 0; r < layout.graft_world_size(); ++r) {
    if (r != me) others.insert(r);
  }
  try {
    // Rank 0 publishes first; every other rank compares with it before
    // publishing, so a rank started with the wrong layout finds out itself
    // even when rank 0 has already given up.
    if (me != 0) {
      a.await({0});
      others.erase(0);
    }
    a.publish();
    a.await(others);
  } catch (...) {
    rethrow_as_graft_error(rank_text(layout, me) + ": the rendezvous store at " + config.master_address + ":" +
                               std::to_string(config.master_port) + " failed during the layout check",
                           "graft rank 0 hosts the store: check that it is still running and not stopped (by a "
                           "debugger or SIGSTOP)");
  }
}

}  // namespace graft::detail
