// The c10d exchange's cost over its floor: a 1+1 b2t exchange of float32
// tensors over Gloo on the loopback, against a raw Gloo send/recv of the same
// bytes on a separate ProcessGroupGloo. Each benchmark runs two threads with
// the same iteration count: thread 0 is the sender, thread 1 the receiver.

#include <array>
#include <memory>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <graft/c10d_exchange.hpp>
#include <graft/config.hpp>

#include "bench_main.hpp"
#include "loopback_gloo.hpp"

namespace {

// Both ranks of each world, created once: creation needs both at the same time.
struct worlds {
  std::array<std::unique_ptr<graft::exchange>, 2> exchanges;
  std::array<c10::intrusive_ptr<c10d::ProcessGroupGloo>, 2> raw;
  std::array<std::uint64_t, 2> sequence{0, 0};

  worlds() {
    graft::graft_config config;
    config.enable = true;
    config.c10d.master_address = "127.0.0.1";
    config.c10d.master_port = graft_bench::free_port();
    config.baseline_world_size = 1;
    config.target_world_size = 1;
    config.timeout_seconds = 60;
    const int raw_port = graft_bench::free_port();
    auto join = [&](int rank) {
      graft::rank_layout layout;
      layout.side = rank == 0 ? graft::role::baseline : graft::role::target;
      exchanges[static_cast<std::size_t>(rank)] = graft::c10d_exchange_factory()(config, layout);

      raw[static_cast<std::size_t>(rank)] = graft_bench::raw_gloo_group(raw_port, rank, 2);
    };
    std::thread target(join, 1);
    join(0);
    target.join();
  }
};

worlds& the_worlds() {
  static worlds w;
  return w;
}

std::int64_t bytes_of(const benchmark::State& state) { return state.range(0); }

// The sender (thread 0) reports the payload's bytes: the same figure for every case.
void report_bytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * bytes_of(state));
  state.counters["bytes"] = static_cast<double>(bytes_of(state));
}

// A float32 payload of the case's size: random on the sender, uninitialised on the receiver.
std::vector<at::Tensor> payload_for(const benchmark::State& state, int me) {
  const std::int64_t numel = bytes_of(state) / 4;
  return {me == 0 ? at::rand({numel}) : at::empty({numel})};
}

// Thread 0 sends the payload to thread 1 over the raw group, and waits.
void move_payload(c10d::ProcessGroupGloo& pg, int me, std::vector<at::Tensor>& buffer, int tag) {
  if (me == 0) {
    pg.send(buffer, 1, tag)->wait();
  } else {
    pg.recv(buffer, 0, tag)->wait();
  }
}

void BM_c10d_exchange(benchmark::State& state) {
  worlds& w = the_worlds();
  const int me = state.thread_index();
  graft::exchange& ex = *w.exchanges[static_cast<std::size_t>(me)];
  const graft::contribution mine{at::rand({bytes_of(state) / 4}), nullptr};
  graft::exchange_call call;
  call.name = "bench";
  call.fingerprint = 7;
  for (auto _ : state) {
    call.sequence = w.sequence[static_cast<std::size_t>(me)]++;
    if (me == 0) {
      ex.run(call, &mine);
    } else {
      benchmark::DoNotOptimize(ex.run(call, nullptr));
    }
  }
  if (me == 0) report_bytes(state);
}

void BM_raw_gloo_send_recv(benchmark::State& state) {
  worlds& w = the_worlds();
  const int me = state.thread_index();
  c10d::ProcessGroupGloo& pg = *w.raw[static_cast<std::size_t>(me)];
  std::vector<at::Tensor> buffer = payload_for(state, me);
  for (auto _ : state) move_payload(pg, me, buffer, 0);
  if (me == 0) report_bytes(state);
}

// The same with a fresh receive buffer per call, as the exchange must hand
// its caller a tensor of its own: what allocation and first touch cost.
void BM_raw_gloo_send_recv_fresh_buffer(benchmark::State& state) {
  worlds& w = the_worlds();
  const int me = state.thread_index();
  c10d::ProcessGroupGloo& pg = *w.raw[static_cast<std::size_t>(me)];
  std::vector<at::Tensor> buffer{at::rand({bytes_of(state) / 4})};
  for (auto _ : state) {
    if (me == 0) {
      pg.send(buffer, 1, 0)->wait();
    } else {
      std::vector<at::Tensor> fresh{at::empty({bytes_of(state) / 4})};
      pg.recv(fresh, 0, 0)->wait();
    }
  }
  if (me == 0) report_bytes(state);
}

// The floor of the exchange's protocol: the same bytes after a 208-byte
// message each way (what the header costs by itself).
void BM_raw_gloo_header_then_payload(benchmark::State& state) {
  worlds& w = the_worlds();
  const int me = state.thread_index();
  const int peer = 1 - me;
  c10d::ProcessGroupGloo& pg = *w.raw[static_cast<std::size_t>(me)];
  std::vector<at::Tensor> buffer = payload_for(state, me);
  std::vector<at::Tensor> header_out{at::zeros({26}, at::kLong)};
  std::vector<at::Tensor> header_in{at::zeros({26}, at::kLong)};
  int tag = 1;
  for (auto _ : state) {
    auto in = pg.recv(header_in, peer, 0);
    auto out = pg.send(header_out, peer, 0);
    in->wait();
    out->wait();
    tag += 4;  // a tag per call, as the exchange uses
    move_payload(pg, me, buffer, tag);
  }
  if (me == 0) report_bytes(state);
}

// The same with the header as Gloo's all-gather, the other way to build it.
void BM_raw_gloo_allgather_then_payload(benchmark::State& state) {
  worlds& w = the_worlds();
  const int me = state.thread_index();
  c10d::ProcessGroupGloo& pg = *w.raw[static_cast<std::size_t>(me)];
  std::vector<at::Tensor> buffer = payload_for(state, me);
  std::vector<at::Tensor> header{at::zeros({26}, at::kLong)};
  std::vector<std::vector<at::Tensor>> gathered{{at::zeros({26}, at::kLong), at::zeros({26}, at::kLong)}};
  for (auto _ : state) {
    pg.allgather(gathered, header)->wait();
    move_payload(pg, me, buffer, 0);
  }
  if (me == 0) report_bytes(state);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t bytes : {std::int64_t{4} << 10, std::int64_t{1} << 20, std::int64_t{16} << 20,
                             std::int64_t{64} << 20}) {
    b->Arg(bytes);
  }
  b->Threads(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_c10d_exchange)->Apply(sizes);
BENCHMARK(BM_raw_gloo_send_recv)->Apply(sizes);
BENCHMARK(BM_raw_gloo_send_recv_fresh_buffer)->Apply(sizes);
BENCHMARK(BM_raw_gloo_header_then_payload)->Apply(sizes);
BENCHMARK(BM_raw_gloo_allgather_then_payload)->Apply(sizes);

}  // namespace

int main(int argc, char** argv) {
  return graft_bench::run_benchmarks(argc, argv, [] {});  // cases register statically (BENCHMARK)
}
