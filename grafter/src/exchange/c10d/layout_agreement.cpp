#include "exchange/c10d/layout_agreement.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/error.hpp>

#include "base/json_text.hpp"
#include "exchange/c10d/c10d_errors.hpp"
#include "exchange/c10d/messages.hpp"
#include "exchange/c10d/world_token.hpp"

namespace graft::detail {
namespace {

// The world's one decision, set once with compareSet: kFormed by graft rank
// 0 when every rank has published an agreeing layout, or else the message
// every rank fails with. Whichever comes first stands.
constexpr const char* kVerdictKey = "verdict";
constexpr const char* kFormed = "formed";
constexpr const char* kVerdictSeenKey = "verdict_seen";
// Waiting ranks read the verdict within one poll (50 ms at most); this only
// bounds the wait for a claimant that died.
constexpr auto kLingerForClaimants = std::chrono::seconds(2);

std::string layout_key(int graft_rank) { return "layout/" + std::to_string(graft_rank); }
std::string claim_key(int graft_rank) { return "claim/" + std::to_string(graft_rank); }
std::string claimant_key(int graft_rank, std::int64_t nth) {
  return "claimant/" + std::to_string(graft_rank) + "/" + std::to_string(nth);
}

std::vector<std::uint8_t> to_bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string from_bytes(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "?";
  return buffer.data();
}

nlohmann::json process_record(const rank_layout& layout) {
  return {{"side", std::string(to_string(layout.side))},
          {"local_rank", layout.local_rank},
          {"pid", static_cast<long>(getpid())},
          {"host", host_name()}};
}

nlohmann::json layout_record(const graft_config& config, const rank_layout& layout, const world_token& token) {
  nlohmann::json record = process_record(layout);
  record.update(token.record());
  record["baseline_world_size"] = layout.baseline_world_size;
  record["target_world_size"] = layout.target_world_size;
  record["backend"] = config.c10d.backend;
  return record;
}

bool same_world(const nlohmann::json& a, const nlohmann::json& b) {
  return a.at("baseline_world_size") == b.at("baseline_world_size") &&
         a.at("target_world_size") == b.at("target_world_size") && a.at("backend") == b.at("backend") &&
         a.at("token") == b.at("token");
}

// "pid 123 on node7".
std::string process_text(const nlohmann::json& r) {
  return "pid " + std::to_string(r.at("pid").get<long>()) + " on " + r.at("host").get<std::string>();
}

std::string record_text(int graft_rank, const nlohmann::json& r) {
  return "graft rank " + std::to_string(graft_rank) + " (" + r.at("side").get<std::string>() + " rank " +
         std::to_string(r.at("local_rank").get<int>()) + ", " + process_text(r) +
         ") runs with baseline_world_size=" + std::to_string(r.at("baseline_world_size").get<int>()) +
         ", target_world_size=" + std::to_string(r.at("target_world_size").get<int>()) +
         ", backend=" + r.at("backend").get<std::string>();
}

class agreement {
 public:
  agreement(c10d::Store& store, const graft_config& config, const rank_layout& layout,
            std::chrono::steady_clock::time_point deadline)
      : store_(store), config_(config), layout_(layout), deadline_(deadline) {}

  // A process of another world is refused here, before it claims a rank:
  // the world it reached never hears of it.
  world_token admit(const nlohmann::json& host) const {
    const world_token hosts = world_token::from_record(host);
    if (const auto problem = admission_problem(config_, hosts)) {
      GRAFT_THROW(config_error, endpoint_text(config_, layout_) + ": not admitted to the graft world there (graft "
                                    "rank 0 is " + process_text(host) + "): " + *problem +
                                    ". That world carries on without this process");
    }
    return joining_token(config_, hosts);
  }

  // A graft rank has one process. A second claimant fails the whole world
  // while it is still forming (neither claimant can be told from the right
  // one), and only itself once the world has formed.
  void claim() {
    const int me = layout_.graft_rank();
    const std::int64_t nth = store_.add(claim_key(me), 1);
    store_.set(claimant_key(me, nth), to_bytes(json_text(process_record(layout_))));
    if (nth == 1) return;
    const std::string holder = first_claimant_text(me);
    const std::string both = rank_text(layout_, me) + " was claimed by two processes, " + holder + " and " +
                             process_text(process_record(layout_)) +
                             ", so the graft world does not form. Each graft rank must be one process: check "
                             "RANK, WORLD_SIZE and DUMPER_GRAFTER_ROLE of every process, and that no process of "
                             "another run uses master_port " + std::to_string(config_.c10d.master_port) +
                             " (a world token keeps worlds apart: " + graft_config::env_name("world_token") + ")";
    const std::string verdict = decide(both);
    if (verdict != kFormed) fail_with(verdict);
    GRAFT_THROW(config_error, endpoint_text(config_, layout_) + ": not admitted: " + rank_text(layout_, me) +
                                  " is held by " + holder + " in a graft world that formed before this process (" +
                                  process_text(process_record(layout_)) +
                                  ") arrived. That world carries on. Check RANK, WORLD_SIZE and "
                                  "DUMPER_GRAFTER_ROLE of this process, or give its world a master_port of its own");
  }

  void publish(const world_token& token) {
    mine_ = layout_record(config_, layout_, token);
    store_.set(layout_key(layout_.graft_rank()), to_bytes(json_text(mine_)));
  }

  nlohmann::json await_layout(int graft_rank) {
    std::optional<nlohmann::json> record;
    poll([&] {
      if (!store_.check({layout_key(graft_rank)})) return false;
      record = parse_record(graft_rank);
      return true;
    });
    return *record;
  }

  // Graft rank 0: every other rank's layout, each checked against its own.
  void await_layouts(std::set<int> pending) {
    poll([&] {
      for (auto it = pending.begin(); it != pending.end();) {
        if (!store_.check({layout_key(*it)})) {
          ++it;
          continue;
        }
        verify(*it, mine_, parse_record(*it));
        it = pending.erase(it);
      }
      return pending.empty();
    });
  }

  // Graft rank 0, once every layout agreed.
  void form() {
    const std::string verdict = decide(kFormed);
    if (verdict != kFormed) fail_with(verdict);
  }

  // Every other rank: graft rank 0's decision.
  void await_formed() {
    poll([&] { return current_verdict() == std::optional<std::string>(kFormed); });
  }

  void verify(int graft_rank, const nlohmann::json& mine, const nlohmann::json& theirs) {
    if (same_world(mine, theirs)) return;
    fail_everywhere("the graft world's layout disagrees between processes: " +
                    record_text(layout_.graft_rank(), mine) + ", but " + record_text(graft_rank, theirs) +
                    ". Set the baseline/target world sizes (DUMPER_GRAFTER_BASELINE_WORLD_SIZE, "
                    "DUMPER_GRAFTER_TARGET_WORLD_SIZE) and the backend to the same values for every process "
                    "of both sides");
  }

 private:
  // Sets the verdict unless one stands; returns the one that stands.
  std::string decide(const std::string& verdict) {
    return from_bytes(store_.compareSet(kVerdictKey, {}, to_bytes(verdict)));
  }

  // Every rank still waiting fails with the same message instead of timing
  // out; once the world has formed, the problem is this process's alone.
  [[noreturn]] void fail_everywhere(const std::string& message) {
    const std::string verdict = decide(message);
    if (verdict == kFormed) GRAFT_THROW(config_error, message);
    fail_with(verdict);
  }

  // A failed verdict ends every process's rendezvous; graft rank 0's ends
  // its store too. So every process that claimed a rank says it has read
  // the verdict, and rank 0 keeps the store a little while for those that
  // have not yet: they get the verdict, not a broken connection.
  [[noreturn]] void fail_with(const std::string& verdict) {
    try {
      const std::int64_t seen = store_.add(kVerdictSeenKey, 1);
      if (layout_.graft_rank() == 0) await_claimants(seen);
    } catch (...) {
      // The store may already be gone with rank 0: the verdict still says it all.
    }
    GRAFT_THROW(config_error, verdict);
  }

  void await_claimants(std::int64_t seen) {
    std::int64_t claimants = 0;
    for (int r = 0; r < layout_.graft_world_size(); ++r) claimants += store_.add(claim_key(r), 0);
    const auto until = std::min(deadline_, std::chrono::steady_clock::now() + kLingerForClaimants);
    while (seen < claimants && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      seen = store_.add(kVerdictSeenKey, 0);
    }
  }

  std::optional<std::string> current_verdict() {
    if (!store_.check({kVerdictKey})) return std::nullopt;
    return from_bytes(store_.get(kVerdictKey));
  }

  // Polls rather than blocking in Store::wait: a waiting rank must also
  // notice a failed verdict, which ends every wait.
  template <typename Done>
  void poll(Done done) {
    auto pause = std::chrono::milliseconds(2);
    for (;;) {
      if (const auto verdict = current_verdict(); verdict && *verdict != kFormed) {
        fail_with(*verdict);
      }
      if (done()) return;
      if (std::chrono::steady_clock::now() >= deadline_) missing();
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }

  nlohmann::json parse_record(int graft_rank) {
    const std::string text = from_bytes(store_.get(layout_key(graft_rank)));
    const nlohmann::json record = nlohmann::json::parse(text, nullptr, false);
    const char* fields[] = {"side", "local_rank", "pid", "host", "token", "token_source",
                            "baseline_world_size", "target_world_size", "backend"};
    const bool complete = record.is_object() && std::all_of(std::begin(fields), std::end(fields), [&](const char* f) {
                            return record.contains(f);
                          });
    if (!complete) {
      GRAFT_THROW(config_error, endpoint_text(config_, layout_) + ": the layout record of " +
                                    rank_text(layout_, graft_rank) + " in the store is not one graft writes" +
                                    " (another program, or a graft release of another record format, uses port " +
                                    std::to_string(config_.c10d.master_port) +
                                    "). Give this world a master_port no other program uses, and run one graft "
                                    "release on every process");
    }
    return record;
  }

  std::string first_claimant_text(int graft_rank) {
    std::optional<std::string> text;
    try {
      poll([&] {
        if (!store_.check({claimant_key(graft_rank, 1)})) return false;
        text = process_text(nlohmann::json::parse(from_bytes(store_.get(claimant_key(graft_rank, 1)))));
        return true;
      });
    } catch (const timeout_error&) {
      // The holder died between its claim and its record: it is still named, if less precisely.
    }
    return text.value_or("another process");
  }

  [[noreturn]] void missing() const {
    std::string names;
    for (int r = 0; r < layout_.graft_world_size(); ++r) {
      if (r != layout_.graft_rank() && !store_.check({layout_key(r)})) {
        names += (names.empty() ? "" : ", ") + rank_text(layout_, r);
      }
    }
    if (names.empty()) names = "graft rank 0's confirmation that the world formed";
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

std::int64_t layout_keys_present(c10d::Store& store, const rank_layout& layout) {
  std::int64_t present = 0;
  const auto count = [&](const std::string& key) {
    if (!store.check({key})) return false;
    ++present;
    return true;
  };
  count(kVerdictKey);
  count(kVerdictSeenKey);
  for (int r = 0; r < layout.graft_world_size(); ++r) {
    count(layout_key(r));
    if (!count(claim_key(r))) continue;
    for (std::int64_t nth = 1; count(claimant_key(r, nth)); ++nth) {
    }
  }
  return present;
}

void agree_on_layout(c10d::Store& store, const graft_config& config, const rank_layout& layout,
                     std::chrono::steady_clock::time_point deadline) {
  agreement a(store, config, layout, deadline);
  const int me = layout.graft_rank();
  try {
    if (me == 0) {
      a.claim();
      a.publish(host_token(config));
      std::set<int> others;
      for (int r = 1; r < layout.graft_world_size(); ++r) others.insert(r);
      a.await_layouts(others);
      a.form();
      return;
    }
    // Every other rank compares with graft rank 0 before it claims a rank, so
    // that a process of another world, or one started with the wrong layout,
    // finds out itself, even when rank 0 has already given up.
    const nlohmann::json host = a.await_layout(0);
    const world_token token = a.admit(host);
    a.verify(0, layout_record(config, layout, token), host);
    a.claim();
    a.publish(token);
    a.await_formed();
  } catch (...) {
    rethrow_as_graft_error(rank_text(layout, me) + ": the rendezvous store at " + config.c10d.master_address + ":" +
                               std::to_string(config.c10d.master_port) + " failed during the layout check",
                           "graft rank 0 hosts the store: check that it is still running and not stopped (by a "
                           "debugger or SIGSTOP)");
  }
}

}  // namespace graft::detail
