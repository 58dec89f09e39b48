#include "exchange/c10d/rendezvous.hpp"

#include <netdb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <graft/error.hpp>

#include "exchange/c10d/c10d_errors.hpp"
#include "exchange/c10d/host_addresses.hpp"
#include "exchange/c10d/layout_agreement.hpp"
#include "exchange/c10d/messages.hpp"
#include "exchange/c10d/nccl_blocking_wait.hpp"
#include "exchange/c10d/store_deadline.hpp"
#include "exchange/c10d/store_listening.hpp"
#include "exchange/c10d/time_left.hpp"

namespace graft::detail {
namespace {

// Resolving up front turns a typo in the address into an immediate, named
// error; c10d's client would retry it until the timeout.
void check_address_resolves(const graft_config& config) {
  if (const int error = resolve_host(config.c10d.master_address).lookup_error; error != 0) {
    GRAFT_THROW(config_error, "master_address: '" + config.c10d.master_address + "' does not resolve (" +
                                  gai_strerror(error) +
                                  "); set it to a host name or IP address every process can reach");
  }
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

// Which interface Gloo listens on: the user's GLOO_SOCKET_IFNAME (as in
// torch.distributed), the loopback when the whole world is on this host, else
// the one this host reaches the master address through. Not the address the
// host's name resolves to, torch.distributed's default: many hosts resolve
// their own name to a loopback address (Debian's 127.0.1.1), where peers on
// other hosts cannot connect. The interface that reaches the master is the
// one that faces the world's other hosts, unless their networks differ (then
// GLOO_SOCKET_IFNAME decides).
std::shared_ptr<gloo::transport::Device> make_gloo_device(const std::string& master_address) {
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0') {
    return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
  }
  if (is_loopback(master_address)) return c10d::ProcessGroupGloo::createDeviceForHostname(master_address);
  if (const std::optional<std::string> local = local_address_towards(master_address)) {
    return c10d::ProcessGroupGloo::createDeviceForHostname(*local);
  }
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

// A client rank waits for the store to listen within the deadline
// (store_listening.hpp), then connects at once.
c10::intrusive_ptr<c10d::Store> connect_store(const graft_config& config, c10d::TCPStoreOptions options,
                                              std::chrono::steady_clock::time_point deadline) {
  if (!await_listening(config.c10d.master_address, config.c10d.master_port, deadline)) {
    throw std::runtime_error("timed out: nothing listened on the port");
  }
  options.timeout = time_left(deadline, std::chrono::seconds(1));
  return c10::make_intrusive<c10d::TCPStore>(config.c10d.master_address, options);
}

c10::intrusive_ptr<c10d::Store> open_store(const graft_config& config, const rank_layout& layout,
                                           std::chrono::milliseconds timeout,
                                           std::chrono::steady_clock::time_point deadline) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(config.c10d.master_port);
  options.isServer = layout.graft_rank() == 0;
  // The layout check that follows is the barrier: it names missing ranks.
  options.waitWorkers = false;
  // At least a second: c10d's store connects to itself in whole seconds, and
  // a host given less could never reach its own store. Waits on the store
  // keep the configured deadline (agree_on_layout polls).
  options.timeout = std::max(timeout, std::chrono::milliseconds(std::chrono::seconds(1)));
  const std::string where = config.c10d.master_address + ":" + std::to_string(config.c10d.master_port);
  try {
    if (!options.isServer) return connect_store(config, options, deadline);
    return c10::make_intrusive<c10d::TCPStore>(config.c10d.master_address, options);
  } catch (...) {
    if (options.isServer) {
      rethrow_as_graft_error(
          endpoint_text(config, layout) + ": cannot host the rendezvous store on port " +
              std::to_string(config.c10d.master_port),
          "Is another process (or an earlier run) using port " + std::to_string(config.c10d.master_port) +
              "? Choose a free master_port, the same on both sides, or stop that process");
    }
    rethrow_as_graft_error(
        endpoint_text(config, layout) + ": cannot reach the rendezvous store at " + where + " within " +
            seconds_text(config.timeout_seconds),
        "Graft rank 0 (baseline rank 0) hosts it: check that the baseline side is running and that "
        "master_address and master_port are the same on both sides and reachable from this host");
  }
}

constexpr int kGlooConnectWaits = 5;

// Gloo waits five times its timeout for a pair's first connection (its
// tcp/pair.h), so the group is given a fifth of what is left: a peer that
// never connects is given up at the deadline, not four timeouts after it.
// Every later wait of the exchange passes its own timeout (call_transport),
// and every rank is known to have come this far (await_every_rank_at_groups).
c10::intrusive_ptr<c10d::ProcessGroupGloo> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                       const graft_config& config, const rank_layout& layout,
                                                       std::chrono::steady_clock::time_point deadline) {
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(
        std::max(std::chrono::milliseconds(1), time_left(deadline) / kGlooConnectWaits));
    options->devices.push_back(make_gloo_device(config.c10d.master_address));
    return c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("gloo", store),
                                                       layout.graft_rank(), layout.graft_world_size(), options);
  } catch (...) {
    rethrow_as_graft_error(endpoint_text(config, layout) + ": creating the Gloo process group failed",
                           "Check that every process of both sides is still running and that they can "
                           "reach each other (GLOO_SOCKET_IFNAME chooses the network interface)");
  }
}

#ifdef GRAFT_WITH_NCCL
c10::intrusive_ptr<c10d::ProcessGroupNCCL> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                       const graft_config& config, const rank_layout& layout,
                                                       std::chrono::milliseconds timeout) {
  try {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(c10::make_intrusive<c10d::PrefixStore>("nccl", store),
                                                       layout.graft_rank(), layout.graft_world_size(), options);
  } catch (...) {
    rethrow_as_graft_error(endpoint_text(config, layout) + ": creating the NCCL process group failed",
                           "Check that every process sees a CUDA device, or use backend=gloo");
  }
}
#endif

// What a rank that got no answer from the store says: the store took the
// connection (the kernel accepts for a stopped process too) but did not
// answer, first or later, within the timeout.
[[noreturn]] void throw_store_silent(const graft_config& config, const rank_layout& layout, bool answered_before) {
  GRAFT_THROW(timeout_error,
              endpoint_text(config, layout) + ": the rendezvous store at " + config.c10d.master_address + ":" +
                  std::to_string(config.c10d.master_port) +
                  (answered_before ? " stopped answering during the rendezvous: no answer"
                                   : " took the connection but did not answer its first request") +
                  " within " + seconds_text(config.timeout_seconds) +
                  ". Graft rank 0 (baseline rank 0) hosts it: check that it is running and not stopped (by a "
                  "debugger or SIGSTOP), and that no other program listens on port " +
                  std::to_string(config.c10d.master_port));
}

std::string answers_key(int graft_rank) { return "answers/" + std::to_string(graft_rank); }

// The first request: a wait on a key this rank has just set, whose timeout
// is part of Store::wait's contract. (libtorch 1.13's client also kept that
// timeout on its socket, bounding every later request of the rendezvous;
// store_deadline bounds them in every release.)
void check_store_answers(c10d::Store& store, const graft_config& config, const rank_layout& layout,
                         std::chrono::steady_clock::time_point deadline) {
  const std::string key = answers_key(layout.graft_rank());
  const auto left = time_left(deadline, std::chrono::seconds(1));
  try {
    store.set(key, std::vector<std::uint8_t>{1});
    store.wait({key}, left);
  } catch (...) {
    rethrow_as_graft_error(
        endpoint_text(config, layout) + ": the rendezvous store at " + config.c10d.master_address + ":" +
            std::to_string(config.c10d.master_port) + " took the connection but did not answer its first request " +
            "within " + seconds_text(config.timeout_seconds),
        "Graft rank 0 (baseline rank 0) hosts it: check that it is running and not stopped (by a debugger or "
        "SIGSTOP), and that no other program listens on port " + std::to_string(config.c10d.master_port));
  }
}

// Every rank says it goes on to make its process groups, and waits, until
// the deadline, for every other rank to say so. Gloo's own wait for a peer's
// address is bounded by the fifth of the time left that make_gloo_group gives
// it: once every rank has come this far, its address follows at once.
void await_every_rank_at_groups(c10d::Store& store, const graft_config& config, const rank_layout& layout,
                                std::chrono::steady_clock::time_point deadline) {
  const auto key = [](int graft_rank) { return "groups/" + std::to_string(graft_rank); };
  std::vector<std::string> keys;
  for (int r = 0; r < layout.graft_world_size(); ++r) keys.push_back(key(r));
  try {
    store.set(key(layout.graft_rank()), std::vector<std::uint8_t>{1});
    store.wait(keys, time_left(deadline));
    return;
  } catch (const std::exception&) {
    // Named below: the ranks whose key never came (this one's own, if the
    // store failed before it was set).
  }
  std::string missing;
  try {
    for (int r = 0; r < layout.graft_world_size(); ++r) {
      if (!store.check({key(r)})) missing += (missing.empty() ? "" : ", ") + rank_text(layout, r);
    }
  } catch (const std::exception&) {
    missing.clear();  // the store itself no longer answers: the caller says so
  }
  GRAFT_THROW(timeout_error, endpoint_text(config, layout) + ": the world agreed on its layout, but " +
                                 (missing.empty() ? std::string("a rank") : missing) +
                                 " did not go on to make the process groups within " +
                                 seconds_text(config.timeout_seconds) +
                                 ". Check that every process of both sides is still running and not stopped "
                                 "(by a debugger or SIGSTOP)");
}

}  // namespace

bool c10d_groups::has_nccl() const {
#ifdef GRAFT_WITH_NCCL
  return bool(nccl);
#else
  return false;
#endif
}

void check_c10d_config(const graft_config& config) {
  if (config.c10d.backend == "nccl") {
#ifndef GRAFT_WITH_NCCL
    GRAFT_THROW(config_error,
                "backend: 'nccl' needs a CUDA build of libtorch, and graft was built without NCCL "
                "(its libtorch has no CUDA, or CMake found no nccl.h: set GRAFT_NCCL_INCLUDE_DIR when "
                "building); use backend=gloo");
#else
    require_nccl_blocking_wait();
#endif
  } else if (config.c10d.backend != "gloo") {
    GRAFT_THROW(config_error, "backend: '" + config.c10d.backend + "' is not supported; use gloo or nccl");
  }
  if (config.c10d.master_address.empty()) {
    GRAFT_THROW(config_error, "master_address: empty; set it to the host of baseline rank 0");
  }
  if (config.c10d.master_port < 1 || config.c10d.master_port > 65535) {
    GRAFT_THROW(config_error, "master_port: " + std::to_string(config.c10d.master_port) +
                                  " is not a TCP port; use a free port in 1..65535");
  }
  if (const auto problem = graft_config::timeout_problem(config.timeout_seconds)) {
    GRAFT_THROW(config_error, "timeout_seconds " + *problem);
  }
}

std::chrono::milliseconds exchange_timeout(const graft_config& config) {
  return std::chrono::milliseconds(
      std::max<long long>(1, static_cast<long long>(std::ceil(config.timeout_seconds * 1000.0))));
}

namespace {

// A rendezvous that timed out in a store that holds keys graft did not write:
// another program reached it, most likely the other side running sglang's own
// grafter (torch.distributed's rendezvous adds a key of its own to the store
// as each process arrives, and its Gloo group another). Said as such, since
// "never arrived" would send the user looking for a process that is running.
[[noreturn]] void throw_foreign_rendezvous(const graft_config& config, const rank_layout& layout) {
  GRAFT_THROW(timeout_error,
              endpoint_text(config, layout) + ": the store at " + config.c10d.master_address + ":" +
                  std::to_string(config.c10d.master_port) + " holds no graft world within " +
                  seconds_text(config.timeout_seconds) +
                  ", but another program reached it. Is the other side running sglang's own grafter (or another "
                  "torch.distributed program on this port)? Both sides must run graft: launch both with "
                  "GRAFT_SGLANG=1, or give this world a master_port of its own");
}

// The group's store is a PrefixStore over the whole store, whose key count
// is the whole store's.
bool holds_foreign_keys(c10d::Store& store, const rank_layout& layout) {
  try {
    std::int64_t graft_keys = layout_keys_present(store, layout);
    for (int r = 0; r < layout.graft_world_size(); ++r) graft_keys += store.check({answers_key(r)}) ? 1 : 0;
    return store.getNumKeys() > graft_keys;
  } catch (...) {
    return false;  // a store that no longer answers: the timeout says enough
  }
}

}  // namespace

met_world meet_at_store(const graft_config& config, const rank_layout& layout) {
  check_c10d_config(config);
  check_address_resolves(config);
  const std::chrono::milliseconds timeout = exchange_timeout(config);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  met_world met{{}, deadline};
  // A second past the deadline: the rendezvous's own bounded waits (a rank
  // that never comes, named by agree_on_layout) end first and say more.
  store_deadline watchdog(config.c10d.master_address, config.c10d.master_port, deadline + std::chrono::seconds(1));
  bool answered = false;
  try {
    met.store =
        c10::make_intrusive<c10d::PrefixStore>(config.c10d.group_name, open_store(config, layout, timeout, deadline));
    check_store_answers(*met.store, config, layout, deadline);
    answered = true;
    agree_on_layout(*met.store, config, layout, deadline);
  } catch (const timeout_error&) {
    if (watchdog.fired()) throw_store_silent(config, layout, answered);
    if (answered && holds_foreign_keys(*met.store, layout)) throw_foreign_rendezvous(config, layout);
    throw;
  } catch (const graft::error&) {
    if (watchdog.fired()) throw_store_silent(config, layout, answered);
    throw;
  }
  watchdog.disarm();
  if (watchdog.fired()) throw_store_silent(config, layout, answered);
  return met;
}

c10d_groups join_graft_world(const graft_config& config, const rank_layout& layout) {
  const met_world met = meet_at_store(config, layout);
  c10d_groups groups;
  groups.store = met.store;
  {
    // As in meet_at_store: a store that stops answering ends the wait at the deadline.
    store_deadline watchdog(config.c10d.master_address, config.c10d.master_port, met.deadline + std::chrono::seconds(1));
    try {
      await_every_rank_at_groups(*groups.store, config, layout, met.deadline);
    } catch (const graft::error&) {
      if (watchdog.fired()) throw_store_silent(config, layout, true);
      throw;
    }
    watchdog.disarm();
    if (watchdog.fired()) throw_store_silent(config, layout, true);
  }
  groups.gloo = make_gloo_group(groups.store, config, layout, met.deadline);
#ifdef GRAFT_WITH_NCCL
  if (config.c10d.backend == "nccl") groups.nccl = make_nccl_group(groups.store, config, layout, exchange_timeout(config));
#endif
  return groups;
}

}  // namespace graft::detail
