#pragma once
// Before any process group exists, every rank publishes its view of the graft
// world in the store and checks the others': two sides started with different
// world sizes or backends get a config_error naming both views (every rank that
// is still waiting sees it too), not a hang.

#include <chrono>
#include <cstdint>

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <graft/config.hpp>
#include <graft/role.hpp>

namespace graft::detail {

// Returns once every graft rank has published an agreeing layout. Throws
// config_error on disagreement or a graft rank taken twice, timeout_error
// naming the ranks that never arrived once the deadline passes.
void agree_on_layout(c10d::Store& store, const graft_config& config, const rank_layout& layout,
                     std::chrono::steady_clock::time_point deadline);

// How many of the keys agree_on_layout writes the store holds now, for every
// rank of the world: what a store that holds other keys besides must have
// been given by another program.
std::int64_t layout_keys_present(c10d::Store& store, const rank_layout& layout);

}  // namespace graft::detail
