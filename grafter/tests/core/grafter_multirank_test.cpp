// In-process versions of the reference's TestGrafterMultiRankCpu: asymmetric
// worlds in both directions, every rank checking its own values.
#include <graft/grafter.hpp>

#include <mutex>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::local_world;
using graft_test::values;

TEST(grafter_multirank, four_baseline_two_target_b2t_with_user_transform) {
  local_world w;
  w.baseline_world_size = 4;
  w.target_world_size = 2;
  w.custom_transform = transform{"check_then_999", [](const graft_transform_input& in) {
                                   if (in.received_list.size() != 4) throw std::runtime_error("expected 4 senders");
                                   for (std::size_t i = 0; i < 4; ++i) {
                                     if (in.received_list[i][0].item<float>() != static_cast<float>(i)) {
                                       throw std::runtime_error("sender order broken");
                                     }
                                   }
                                   if (in.recv_world_size != 2 || in.sender_ranks != std::vector<int>{0, 1, 2, 3}) {
                                     throw std::runtime_error("bad transform input");
                                   }
                                   return at::full_like(in.target, 999.0);
                                 }};
  std::mutex m;
  std::vector<std::vector<double>> targets;
  w.run([&](role side, int rank, grafter& g) {
    at::Tensor t = side == role::baseline ? at::full({3}, static_cast<float>(rank)) : at::full({3}, 99.0f);
    g.maybe_intercept(t, {{"name", "x"}});
    std::lock_guard<std::mutex> lock(m);
    if (side == role::target) targets.push_back(values(t));
  });
  EXPECT_EQ(targets, (std::vector<std::vector<double>>(2, {999, 999, 999})));
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 2u);
  EXPECT_EQ(w.events_of("send", role::baseline).size(), 4u);
}

TEST(grafter_multirank, two_target_four_baseline_t2b_with_user_transform) {
  local_world w;
  w.baseline_world_size = 4;
  w.target_world_size = 2;
  w.config.b2t_filter.reset();
  w.config.t2b_filter = "name == 'x'";
  w.custom_transform = transform{"check_then_7", [](const graft_transform_input& in) {
                                   if (in.received_list.size() != 2) throw std::runtime_error("expected 2 senders");
                                   for (std::size_t i = 0; i < 2; ++i) {
                                     if (in.received_list[i][0].item<float>() != static_cast<float>(i + 100)) {
                                       throw std::runtime_error("sender order broken");
                                     }
                                   }
                                   if (in.direction != direction::t2b || in.recv_world_size != 4) {
                                     throw std::runtime_error("bad transform input");
                                   }
                                   return at::full_like(in.target, 7.0);
                                 }};
  std::mutex m;
  std::vector<std::vector<double>> baselines;
  w.run([&](role side, int rank, grafter& g) {
    at::Tensor t = side == role::target ? at::full({3}, static_cast<float>(rank + 100)) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    std::lock_guard<std::mutex> lock(m);
    if (side == role::baseline) baselines.push_back(values(t));
  });
  EXPECT_EQ(baselines, (std::vector<std::vector<double>>(4, {7, 7, 7})));
}

TEST(grafter_multirank, default_transform_with_asymmetric_world_logs_and_skips) {
  local_world w;
  w.baseline_world_size = 4;
  w.target_world_size = 2;
  std::mutex m;
  std::vector<std::vector<double>> targets;
  w.run([&](role side, int rank, grafter& g) {
    at::Tensor t = side == role::baseline ? at::full({3}, static_cast<float>(rank)) : at::full({3}, 42.0f);
    g.maybe_intercept(t, {{"name", "x"}});
    std::lock_guard<std::mutex> lock(m);
    if (side == role::target) targets.push_back(values(t));
  });
  EXPECT_EQ(targets, (std::vector<std::vector<double>>(2, {42, 42, 42})));
  const auto skipped = w.events_of("recv_skipped", role::target);
  ASSERT_EQ(skipped.size(), 2u);
  const std::string message = skipped[0].fields["message"];
  EXPECT_NE(message.find("#senders=4"), std::string::npos);
  EXPECT_NE(message.find("#recvs=2"), std::string::npos);
}

TEST(grafter_multirank, mixed_sender_shapes_with_a_concatenating_transform) {
  local_world w;
  w.baseline_world_size = 4;
  w.target_world_size = 1;
  w.custom_transform = transform{"concat_all", [](const graft_transform_input& in) {
                                   for (std::size_t i = 0; i < in.received_list.size(); ++i) {
                                     if (in.received_list[i].size(0) != static_cast<std::int64_t>(i + 1)) {
                                       throw std::runtime_error("sender shapes not preserved");
                                     }
                                   }
                                   return at::cat(in.received_list);
                                 }};
  at::Tensor target_after;
  w.run([&](role side, int rank, grafter& g) {
    at::Tensor t = side == role::baseline ? at::full({rank + 1}, static_cast<float>(rank)) : at::zeros({10});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) target_after = t;
  });
  EXPECT_EQ(values(target_after), (std::vector<double>{0, 1, 1, 2, 2, 2, 3, 3, 3, 3}));
}

TEST(grafter_multirank, two_plus_two_identity_by_rank) {
  local_world w;
  w.baseline_world_size = 2;
  w.target_world_size = 2;
  std::mutex m;
  std::map<int, std::vector<double>> targets;
  w.run([&](role side, int rank, grafter& g) {
    at::Tensor t = side == role::baseline ? at::arange(3, at::kFloat) + 10 * rank : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    std::lock_guard<std::mutex> lock(m);
    if (side == role::target) targets[rank] = values(t);
  });
  EXPECT_EQ(targets[0], (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(targets[1], (std::vector<double>{10, 11, 12}));
}

}  // namespace
}  // namespace graft
