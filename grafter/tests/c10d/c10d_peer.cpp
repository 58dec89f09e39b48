// One rank of a multi-process c10d exchange test.
//
//   c10d_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S CALLS [hang]
//
// Joins the graft world on 127.0.0.1:PORT, makes CALLS calls (even sequence
// numbers b2t, odd t2b; senders send known values, receivers check them),
// printing "created" and "call N ok" lines, then exits 0, or hangs when asked
// (for a test that kills it). A graft error prints "error KIND: MESSAGE" and
// exits with the kind's code below.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <ATen/ATen.h>

#include <graft/c10d_exchange.hpp>
#include <graft/config.hpp>
#include <graft/error.hpp>

namespace {

constexpr int kConfigError = 10;
constexpr int kTimeoutError = 11;
constexpr int kDesyncError = 12;
constexpr int kExchangeError = 13;
constexpr int kOtherError = 14;
constexpr int kUsage = 2;

at::Tensor value_of(std::uint64_t sequence, int local_rank) {
  return at::arange(6, at::kFloat).reshape({2, 3}) + 100.0 * local_rank + 1000.0 * static_cast<double>(sequence);
}

int fail(const char* kind, const std::exception& e, int code) {
  std::cout << "error " << kind << ": " << e.what() << std::endl;
  return code;
}

int run(int argc, char** argv) {
  if (argc < 8) {
    std::cerr << "usage: c10d_peer ROLE LOCAL_RANK B T PORT TIMEOUT_S CALLS [hang]\n";
    return kUsage;
  }
  graft::graft_config config;
  config.enable = true;
  config.master_address = "127.0.0.1";
  config.baseline_world_size = std::atoi(argv[3]);
  config.target_world_size = std::atoi(argv[4]);
  config.master_port = std::atoi(argv[5]);
  config.timeout_seconds = std::atof(argv[6]);
  graft::rank_layout layout;
  layout.side = std::string(argv[1]) == "baseline" ? graft::role::baseline : graft::role::target;
  layout.local_rank = std::atoi(argv[2]);
  layout.baseline_world_size = config.baseline_world_size;
  layout.target_world_size = config.target_world_size;
  const int calls = std::atoi(argv[7]);
  const bool hang = argc > 8 && std::string(argv[8]) == "hang";

  std::unique_ptr<graft::exchange> exchange = graft::c10d_exchange_factory()(config, layout);
  std::cout << "created" << std::endl;
  for (int seq = 0; seq < calls; ++seq) {
    graft::exchange_call call;
    call.sequence = static_cast<std::uint64_t>(seq);
    call.fingerprint = 0xabc0 + static_cast<std::uint64_t>(seq);
    call.direction = seq % 2 == 0 ? graft::direction::b2t : graft::direction::t2b;
    call.name = "peer_call";
    if (graft::is_sender(layout.side, call.direction)) {
      const graft::contribution mine{value_of(call.sequence, layout.local_rank), nullptr};
      exchange->run(call, &mine);
      std::cout << "call " << seq << " ok" << std::endl;
      continue;
    }
    const graft::received got = exchange->run(call, nullptr);
    bool right = true;
    for (std::size_t s = 0; s < got.tensors.size(); ++s) {
      right = right && at::equal(got.tensors[s], value_of(call.sequence, static_cast<int>(s)));
    }
    std::cout << "call " << seq << (right ? " ok" : " wrong") << std::endl;
  }
  if (hang) {
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
