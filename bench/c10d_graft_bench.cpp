// Case 6 end to end: what a user's maybe_intercept costs over c10d, against
// raw Gloo moving the same bytes between the same ranks. One thread per rank,
// each with its own grafter (real config, real c10d group on the loopback,
// identity by rank, events built and handed to a sink), in worlds of 1+1 and
// 2+2:
//   c10d_graft_off/<B>x<B>/<bytes>   maybe_intercept with measure=off
//   c10d_graft_full/<B>x<B>/<bytes>  the same with measure=full (the default)
//   c10d_raw_fan_out/<B>x<B>/<bytes> the payload's bytes over a raw
//                                    ProcessGroupGloo: every baseline rank to
//                                    every target rank, all at once
// <bytes> is one rank's tensor; the report divides each graft by the raw
// fan-out of the same world and size. The exchange also allocates each
// received tensor (the transform keeps what it is handed), which the raw
// floor, receiving into fixed buffers, does not.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <graft/config.hpp>
#include <graft/event_sink.hpp>
#include <graft/grafter.hpp>

#include "bench_main.hpp"
#include "loopback_gloo.hpp"

namespace {

// Takes every event (so each one is built, as for any sink) and counts the
// grafts, so that a run whose grafts were skipped reports an error instead of
// timing the wrong thing.
class counting_sink final : public graft::event_sink {
 public:
  void write(const graft::event& e) override {
    if (e.kind == "recv_grafted") ++grafted_;
  }
  std::int64_t grafted() const { return grafted_; }

 private:
  std::atomic<std::int64_t> grafted_{0};
};

const graft::tags& call_tags() {
  static const graft::tags t{{"name", "x"}, {"layer_id", 0}};
  return t;
}

// per_side baseline ranks (threads 0..per_side-1) and as many target ranks,
// each with a grafter whose group is already up, plus a raw Gloo group of
// the same ranks.
struct graft_world {
  int per_side;
  std::vector<std::unique_ptr<graft::grafter>> grafters;
  std::vector<std::shared_ptr<counting_sink>> sinks;
  std::vector<c10::intrusive_ptr<c10d::ProcessGroupGloo>> raw;

  graft_world(int per_side_, graft::measure_mode mode) : per_side(per_side_) {
    const int ranks = 2 * per_side;
    graft::graft_config config;
    config.enable = true;
    config.c10d.master_address = "127.0.0.1";
    config.c10d.master_port = graft_bench::free_port();
    config.baseline_world_size = per_side;
    config.target_world_size = per_side;
    config.b2t_filter = "name == 'x'";
    config.timeout_seconds = 60;
    config.measure = mode;
    const int raw_port = graft_bench::free_port();
    grafters.resize(static_cast<std::size_t>(ranks));
    sinks.resize(static_cast<std::size_t>(ranks));
    raw.resize(static_cast<std::size_t>(ranks));
    // Group creation and the raw group's constructor need every rank at once.
    auto join = [&](int thread) {
      const auto slot = static_cast<std::size_t>(thread);
      const bool baseline = thread < per_side;
      graft::graft_config mine = config;
      mine.side = baseline ? graft::role::baseline : graft::role::target;
      sinks[slot] = std::make_shared<counting_sink>();
      graft::grafter_options options;
      options.sink = sinks[slot];
      grafters[slot] = std::make_unique<graft::grafter>(
          mine, graft::side_rank{baseline ? thread : thread - per_side, per_side}, options);
      grafters[slot]->maybe_intercept(at::zeros({1}), call_tags());

      raw[slot] = graft_bench::raw_gloo_group(raw_port, thread, ranks);
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < ranks; ++t) threads.emplace_back(join, t);
    join(0);
    for (std::thread& t : threads) t.join();
    for (const auto& g : grafters) {
      if (!g->active() || !g->has_group()) throw std::runtime_error("a grafter of the bench world did not start");
    }
  }
};

// One world per (per_side, measure), made by the first thread that needs it.
// Never destroyed: tearing down live Gloo groups at exit can wait on peers
// whose threads are gone.
graft_world& world(int per_side, graft::measure_mode mode) {
  static std::mutex mutex;
  static graft_world* worlds[3][2] = {};
  const std::lock_guard<std::mutex> lock(mutex);
  graft_world*& w = worlds[per_side][mode == graft::measure_mode::full ? 1 : 0];
  if (w == nullptr) w = new graft_world(per_side, mode);
  return *w;
}

void report_bytes(benchmark::State& state, std::int64_t bytes) {
  if (state.thread_index() != 0) return;
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["bytes"] = static_cast<double>(bytes);
}

void run_graft(benchmark::State& state, int per_side, graft::measure_mode mode, std::int64_t bytes) {
  graft_world& w = world(per_side, mode);
  const int me = state.thread_index();
  const auto slot = static_cast<std::size_t>(me);
  const bool baseline = me < per_side;
  const at::Tensor mine = baseline ? at::rand({bytes / 4}) : at::zeros({bytes / 4});
  const std::int64_t grafted_before = w.sinks[slot]->grafted();
  for (auto _ : state) w.grafters[slot]->maybe_intercept(mine, call_tags());
  const std::int64_t grafted = w.sinks[slot]->grafted() - grafted_before;
  if (!baseline && grafted != static_cast<std::int64_t>(state.iterations())) {
    state.SkipWithError(("only " + std::to_string(grafted) + " of " + std::to_string(state.iterations()) +
                         " calls grafted; the timing would not be a graft's")
                            .c_str());
    return;
  }
  report_bytes(state, bytes);
}

// The same bytes as the exchange's payload: every baseline rank sends its
// tensor to every target rank (each receiver gets all senders' tensors, as
// the transform sees them), all transfers in flight at once.
void run_raw_fan_out(benchmark::State& state, int per_side, std::int64_t bytes) {
  graft_world& w = world(per_side, graft::measure_mode::off);
  const int me = state.thread_index();
  const bool baseline = me < per_side;
  const int first_peer = baseline ? per_side : 0;
  std::vector<std::vector<at::Tensor>> buffers;
  for (int p = 0; p < per_side; ++p) {
    buffers.push_back({baseline ? at::rand({bytes / 4}) : at::empty({bytes / 4})});
  }
  c10d::ProcessGroupGloo& pg = *w.raw[static_cast<std::size_t>(me)];
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
  for (auto _ : state) {
    pending.clear();
    for (int p = 0; p < per_side; ++p) {
      auto& buffer = buffers[static_cast<std::size_t>(p)];
      pending.push_back(baseline ? pg.send(buffer, first_peer + p, 0) : pg.recv(buffer, first_peer + p, 0));
    }
    for (auto& work : pending) work->wait();
  }
  report_bytes(state, bytes);
}

void register_all() {
  for (const int per_side : {1, 2}) {
    const std::string world_name = std::to_string(per_side) + "x" + std::to_string(per_side);
    for (const std::int64_t bytes : {std::int64_t{4} << 10, std::int64_t{1} << 20, std::int64_t{16} << 20,
                                     std::int64_t{64} << 20}) {
      const std::string key = "/" + world_name + "/" + std::to_string(bytes);
      const auto shape = [per_side](benchmark::internal::Benchmark* b) {
        b->Threads(2 * per_side)->UseRealTime()->Unit(benchmark::kMicrosecond);
      };
      shape(benchmark::RegisterBenchmark(("c10d_graft_off" + key).c_str(), [=](benchmark::State& s) {
        run_graft(s, per_side, graft::measure_mode::off, bytes);
      }));
      shape(benchmark::RegisterBenchmark(("c10d_graft_full" + key).c_str(), [=](benchmark::State& s) {
        run_graft(s, per_side, graft::measure_mode::full, bytes);
      }));
      shape(benchmark::RegisterBenchmark(("c10d_raw_fan_out" + key).c_str(),
                                         [=](benchmark::State& s) { run_raw_fan_out(s, per_side, bytes); }));
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return graft_bench::run_benchmarks(argc, argv, register_all); }
