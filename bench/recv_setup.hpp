#pragma once
// One receiver of a 1+1 b2t world, fed a source tensor as if it had arrived:
// the recv path that the CPU and CUDA benchmarks time, on either device.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <ATen/ATen.h>

#include <graft/transform.hpp>

#include "bench_sizes.hpp"
#include "core/recv_guard.hpp"

namespace graft_bench {

struct recv_setup {
  graft::tags call_tags{{"name", "x"}};
  graft::rank_layout layout;
  std::string no_problem;
  at::Tensor source, target;

  recv_setup(const dtype_case& d, std::int64_t bytes, at::Device device) {
    layout.side = graft::role::target;
    const std::int64_t n = bytes / static_cast<std::int64_t>(c10::elementSize(d.type));
    at::manual_seed(1);
    source = at::randn({n}, at::device(device)).to(d.type);
    target = at::randn({n}, at::device(device)).to(d.type);
  }

  // Runs the guarded recv path with `chosen`, measuring or not (measure=off),
  // writing or not (a compare-only name). Throws when the graft was skipped:
  // a bench would time the wrong thing.
  graft::detail::recv_outcome graft(const graft::transform& chosen, bool measure, bool write = true) {
    graft::received incoming;
    incoming.sender_ranks = {0};
    incoming.tensors = {source};
    incoming.extras = {nullptr};
    graft::detail::recv_outcome outcome = graft::detail::graft_received(
        {call_tags, graft::direction::b2t, layout, target, std::move(incoming), &chosen, no_problem, measure, write});
    if (!outcome.grafted) {
      throw std::runtime_error("the bench graft was skipped: " + outcome.fields().dump());
    }
    return outcome;
  }
};

// Receiver i takes sender i's tensor, doubled; with_plan adds the fused plan.
inline const graft::transform& doubling(bool with_plan) {
  static const graft::transform plain{"double", [](const graft::graft_transform_input& in) {
                                        return in.received_list.at(static_cast<std::size_t>(in.recv_rank)) * 2;
                                      }};
  static const graft::transform fused{plain.name, plain.fn, [](const graft::graft_transform_input& in) {
                                        return std::optional<graft::fused_plan>(
                                            graft::fused_plan{static_cast<std::size_t>(in.recv_rank), 2.0});
                                      }};
  return with_plan ? fused : plain;
}

}  // namespace graft_bench
