#pragma once
// Runs B baseline and T target ranks as threads of one process, each with its
// own grafter joined by the in-process exchange, all writing to one memory sink.

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <graft/event_sink.hpp>
#include <graft/grafter.hpp>
#include <graft/local_exchange.hpp>

namespace graft_test {

struct local_world {
  int baseline_world_size = 1;
  int target_world_size = 1;
  graft::graft_config config = default_config();
  std::optional<graft::transform> custom_transform;
  std::shared_ptr<graft::memory_sink> sink = std::make_shared<graft::memory_sink>();
  // A second sink that every rank writes to, after `sink` (unset: none).
  std::shared_ptr<graft::event_sink> also;
  nlohmann::json group_init_notes;  // grafter_options::group_init_notes

  static graft::graft_config default_config() {
    graft::graft_config c;
    c.enable = true;
    c.c10d.master_address = "127.0.0.1";
    c.c10d.master_port = 1;  // unused by the in-process exchange
    c.timeout_seconds = 10;
    c.b2t_filter = "name == 'x'";
    return c;
  }

  // Calls body(side, local_rank, grafter) on every rank, each on its own thread.
  void run(const std::function<void(graft::role, int, graft::grafter&)>& body) {
    config.baseline_world_size = baseline_world_size;
    config.target_world_size = target_world_size;
    auto hub = graft::make_local_exchange_hub(baseline_world_size, target_world_size);
    std::vector<std::thread> threads;
    for (graft::role side : {graft::role::baseline, graft::role::target}) {
      const int size = side == graft::role::baseline ? baseline_world_size : target_world_size;
      for (int rank = 0; rank < size; ++rank) {
        threads.emplace_back([&, side, rank, size] {
          graft::graft_config mine = config;
          mine.side = side;
          graft::grafter_options options;
          options.sink = sink;
          if (also) options.sink = std::make_shared<graft::multi_sink>(std::vector<std::shared_ptr<graft::event_sink>>{sink, also});
          options.make_exchange = graft::local_exchange_factory(hub);
          options.custom_transform = custom_transform;
          options.group_init_notes = group_init_notes;
          graft::grafter g(mine, {rank, size}, options);
          body(side, rank, g);
        });
      }
    }
    for (auto& t : threads) t.join();
  }

  std::vector<graft::event> events_of(const std::string& kind, graft::role side) const {
    std::vector<graft::event> out;
    for (const auto& e : sink->events_of(kind)) {
      if (e.side == graft::to_string(side)) out.push_back(e);
    }
    return out;
  }
};

}  // namespace graft_test
