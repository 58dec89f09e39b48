#pragma once
// Builds a graft_transform_input for tests; the input holds references, so
// the tags and target live in this fixture object.

#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <graft/transform.hpp>

namespace graft_test {

struct transform_call {
  graft::tags tags{{"name", "x"}};
  at::Tensor target;
  std::vector<at::Tensor> received;
  std::vector<nlohmann::json> extras;
  int recv_rank = 0;
  int recv_world_size = 1;

  transform_call(at::Tensor target_, std::vector<at::Tensor> received_, int rank, int world)
      : target(std::move(target_)),
        received(std::move(received_)),
        recv_rank(rank),
        recv_world_size(world) {
    extras.assign(received.size(), nullptr);
  }

  graft::graft_transform_input input() const {
    std::vector<int> senders;
    for (int i = 0; i < static_cast<int>(received.size()); ++i) senders.push_back(i);
    return graft::graft_transform_input{
        tags, received, extras, target, graft::direction::b2t, recv_rank, recv_world_size, senders};
  }

  at::Tensor run(const graft::transform& t) const { return t.fn(input()); }
};

}  // namespace graft_test
