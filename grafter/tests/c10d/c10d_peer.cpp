// One rank of a multi-process c10d exchange test.
//
//   c10d_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S CALLS [OPTION...]
//
// Joins the graft world on 127.0.0.1:PORT, makes CALLS calls (even call
// numbers b2t, odd t2b; senders send known values, receivers check them),
// printing "created" and "call N ok" lines, then exits 0. A graft error
// prints "error KIND: MESSAGE" and "seconds in main: S" (from main's start),
// and exits with the kind's code below.
//
// Options, in any order after CALLS:
//   hang                 after the calls, wait forever (for a test that kills it)
//   stop                 after the calls, print "stopping" and stop with SIGSTOP
//   as-grafter           give each call the sequence, fingerprint and name a
//                        graft::grafter gives a dump point tagged
//                        {'name': 'b2t_value'} (b2t) or {'name': 't2b_value'}
//                        (t2b), so that a grafter can be this rank's peer
//   stop-after-header=N  in call N, once the headers went through and were
//                        checked, print "call N header through" and stop with
//                        SIGSTOP before the payload
//   kill-after-header=N  the same, then die of SIGKILL
//   stop-before-groups   join the store and agree on the layout, as every rank
//                        does first, then print "stopping before the groups"
//                        and stop with SIGSTOP: no process group is made, so
//                        the other ranks' Gloo connections to it never come
//   backend=gloo|nccl    the config's backend (default gloo); with nccl
//                        every tensor is on a CUDA device (graft rank modulo
//                        the devices visible), so the payload travels over
//                        NCCL, and graft needs TORCH_NCCL_BLOCKING_WAIT=1 (or
//                        NCCL_BLOCKING_WAIT=1) in the environment
// With stop-after-header or kill-after-header the calls run through the c10d
// exchange's own parts (join_graft_world, call_transport, check_wire_headers)
// in c10d_exchange::run's order, so that the rank can stop between them.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <graft/c10d_exchange.hpp>
#include <graft/config.hpp>
#include <graft/error.hpp>
#include <graft/tags.hpp>

#include "exchange/c10d/call_transport.hpp"
#include "exchange/c10d/receive_buffers.hpp"
#include "exchange/c10d/rendezvous.hpp"
#include "exchange/c10d/wire_header.hpp"

namespace {

constexpr int kConfigError = 10;
constexpr int kTimeoutError = 11;
constexpr int kDesyncError = 12;
constexpr int kExchangeError = 13;
constexpr int kOtherError = 14;
constexpr int kUsage = 2;

constexpr const char* kUsageText =
    "usage: c10d_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S CALLS [hang] [stop] [as-grafter] "
    "[stop-after-header=N] [kill-after-header=N] [stop-before-groups] [backend=gloo|nccl]\n";

// What the process does once its calls are made.
enum class after_calls { exit, hang, stop };
// What it does in one call between the headers and the payload.
enum class after_header { go_on, stop, kill };

struct options {
  after_calls then = after_calls::exit;
  bool as_grafter = false;
  std::optional<int> interrupted_call;  // the call of stop/kill-after-header
  after_header interruption = after_header::go_on;
  std::string backend = "gloo";
  bool stop_before_groups = false;
};

// A whole number >= 0, or nullopt.
std::optional<int> whole_number(const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 0 || value > 1000000) return std::nullopt;
  return static_cast<int>(value);
}

// The options after CALLS; nullopt (with a line on stderr) for one it does not know.
std::optional<options> parse_options(int argc, char** argv, int first) {
  options out;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (arg == "hang") {
      out.then = after_calls::hang;
    } else if (arg == "stop") {
      out.then = after_calls::stop;
    } else if (arg == "as-grafter") {
      out.as_grafter = true;
    } else if (arg == "stop-before-groups") {
      out.stop_before_groups = true;
    } else if ((key == "stop-after-header" || key == "kill-after-header") && whole_number(value)) {
      out.interrupted_call = whole_number(value);
      out.interruption = key == "stop-after-header" ? after_header::stop : after_header::kill;
    } else if (key == "backend" && (value == "gloo" || value == "nccl")) {
      out.backend = value;
    } else {
      std::cerr << "c10d_peer: unknown or malformed option '" << arg << "'\n" << kUsageText;
      return std::nullopt;
    }
  }
  return out;
}

at::Tensor value_of(std::uint64_t sequence, int local_rank) {
  return at::arange(6, at::kFloat).reshape({2, 3}) + 100.0 * local_rank + 1000.0 * static_cast<double>(sequence);
}

graft::exchange_call make_call(int seq, bool as_grafter, c10::Device device) {
  graft::exchange_call call;
  call.recv_device = device;
  call.direction = seq % 2 == 0 ? graft::direction::b2t : graft::direction::t2b;
  if (as_grafter) {
    // graft::grafter numbers its matched calls from 1 and fingerprints the tags.
    call.name = call.direction == graft::direction::b2t ? "b2t_value" : "t2b_value";
    call.sequence = static_cast<std::uint64_t>(seq) + 1;
    call.fingerprint = graft::fingerprint(graft::tags{{"name", call.name}});
  } else {
    call.name = "peer_call";
    call.sequence = static_cast<std::uint64_t>(seq);
    call.fingerprint = 0xabc0 + static_cast<std::uint64_t>(seq);
  }
  return call;
}

// c10d_exchange::run (grafter/src/exchange/c10d/c10d_exchange.cpp) phase by
// phase from the same parts, with a point between the header phase and the
// payload where the rank can stop or die.
class staged_exchange {
 public:
  staged_exchange(const graft::graft_config& config, const graft::rank_layout& layout)
      : layout_(layout), timeout_(graft::detail::exchange_timeout(config)),
        groups_(graft::detail::join_graft_world(config, layout)) {}

  graft::received run(const graft::exchange_call& call, const graft::contribution* outgoing, int call_number,
                      after_header interruption) {
    const bool sending = graft::is_sender(layout_.side, call.direction);
    const graft::detail::outgoing_payload payload =
        graft::detail::prepare_outgoing(call, outgoing, sending, layout_.graft_rank(), groups_.has_nccl());
    const std::vector<graft::detail::wire_header> headers =
        transport("header exchange").gather_headers(payload.header);
    graft::detail::check_wire_headers(headers, payload.header, layout_, payload.refusal);
    if (interruption != after_header::go_on) {
      std::cout << "call " << call_number << " header through" << std::endl;
      raise(interruption == after_header::stop ? SIGSTOP : SIGKILL);
    }
    graft::detail::call_transport mover = transport("payload");
    if (!sending) return mover.receive(call, headers, buffers_);
    mover.send(call, payload);
    return {};
  }

 private:
  graft::detail::call_transport transport(const std::string& phase) const {
    return graft::detail::call_transport(groups_, layout_, std::chrono::steady_clock::now() + timeout_,
                                         "c10d_peer: " + phase);
  }

  graft::rank_layout layout_;
  std::chrono::milliseconds timeout_;
  graft::detail::c10d_groups groups_;
  graft::detail::receive_buffers buffers_;
};

// From main's start: what a timed-out rank's wait is bounded by, without
// the loading of libtorch before main, which a loaded machine stretches.
const auto main_started = std::chrono::steady_clock::now();

int fail(const char* kind, const std::exception& e, int code) {
  std::cout << "error " << kind << ": " << e.what() << std::endl;
  std::cout << "seconds in main: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - main_started).count() << std::endl;
  return code;
}

int run(int argc, char** argv) {
  if (argc < 8) {
    std::cerr << kUsageText;
    return kUsage;
  }
  const std::optional<options> opt = parse_options(argc, argv, 8);
  if (!opt) return kUsage;
  graft::graft_config config;
  config.enable = true;
  config.c10d.master_address = "127.0.0.1";
  config.baseline_world_size = std::atoi(argv[3]);
  config.target_world_size = std::atoi(argv[4]);
  config.c10d.master_port = std::atoi(argv[5]);
  config.timeout_seconds = std::atof(argv[6]);
  config.c10d.backend = opt->backend;
  graft::rank_layout layout;
  layout.side = std::string(argv[1]) == "baseline" ? graft::role::baseline : graft::role::target;
  layout.local_rank = std::atoi(argv[2]);
  layout.baseline_world_size = config.baseline_world_size;
  layout.target_world_size = config.target_world_size;
  const int calls = std::atoi(argv[7]);
  // This rank's device: its graft rank modulo the devices, as the harness does.
  c10::Device device(c10::kCPU);
  if (opt->backend == "nccl") {
    const auto devices = std::max<std::size_t>(1, at::getNumGPUs());
    device = c10::Device(c10::kCUDA,
                         static_cast<c10::DeviceIndex>(static_cast<std::size_t>(layout.graft_rank()) % devices));
    c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(device);
  }

  if (opt->stop_before_groups) {
    // Kept while stopped: on graft rank 0 the store lives in this process.
    const graft::detail::met_world met = graft::detail::meet_at_store(config, layout);
    std::cout << "stopping before the groups" << std::endl;
    raise(SIGSTOP);
    return 0;
  }

  // One of the two is set: the exchange as host programs get it, or its
  // parts when a call is to be interrupted between them.
  std::unique_ptr<graft::exchange> exchange;
  std::unique_ptr<staged_exchange> staged;
  if (opt->interrupted_call) {
    staged = std::make_unique<staged_exchange>(config, layout);
  } else {
    exchange = graft::c10d_exchange_factory()(config, layout);
  }
  std::cout << "created" << std::endl;
  const auto run_call = [&](const graft::exchange_call& call, const graft::contribution* outgoing, int seq) {
    if (exchange) return exchange->run(call, outgoing);
    return staged->run(call, outgoing, seq, seq == opt->interrupted_call ? opt->interruption : after_header::go_on);
  };
  for (int seq = 0; seq < calls; ++seq) {
    const graft::exchange_call call = make_call(seq, opt->as_grafter, device);
    if (graft::is_sender(layout.side, call.direction)) {
      const graft::contribution mine{value_of(call.sequence, layout.local_rank).to(device), nullptr};
      run_call(call, &mine, seq);
      std::cout << "call " << seq << " ok" << std::endl;
      continue;
    }
    const graft::received got = run_call(call, nullptr, seq);
    bool right = true;
    for (std::size_t s = 0; s < got.tensors.size(); ++s) {
      right = right && at::equal(got.tensors[s].cpu(), value_of(call.sequence, static_cast<int>(s)));
    }
    std::cout << "call " << seq << (right ? " ok" : " wrong") << std::endl;
  }
  if (opt->then == after_calls::stop) {
    std::cout << "stopping" << std::endl;
    raise(SIGSTOP);
  }
  if (opt->then == after_calls::hang) {
    for (;;) pause();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const graft::config_error& e) {
    return fail("config_error", e, kConfigError);
  } catch (const graft::timeout_error& e) {
    return fail("timeout_error", e, kTimeoutError);
  } catch (const graft::desync_error& e) {
    return fail("desync_error", e, kDesyncError);
  } catch (const graft::exchange_error& e) {
    return fail("exchange_error", e, kExchangeError);
  } catch (const std::exception& e) {
    return fail("other", e, kOtherError);
  }
}
