// Compare-only grafts: names flow baseline -> target like b2t, the receiver
// measures them against its own tensor and never writes it.
#include <graft/grafter.hpp>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::byte_checksum;
using graft_test::local_world;

TEST(grafter_compare, measures_without_writing) {
  local_world w;
  w.config.b2t_filter.reset();
  w.config.compare_filter = "name == 'mlp_output'";
  at::Tensor target = at::tensor({1.0f, 2.0f, 4.0f});
  const auto before = byte_checksum(target);
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(at::tensor({1.0f, 2.0f, 3.0f}), {{"name", "mlp_output"}});
    } else {
      g.maybe_intercept(target, {{"name", "mlp_output"}});
    }
  });
  EXPECT_EQ(byte_checksum(target), before);
  const auto compared = w.events_of("compare", role::target);
  ASSERT_EQ(compared.size(), 1u);
  // x = the target's own [1,2,4], y = the baseline's [1,2,3]: the reference's example.
  EXPECT_NEAR(compared[0].fields["metrics"]["rel_diff"].get<double>(), 0.0285714, 1e-7);
  EXPECT_EQ(compared[0].fields["metrics"]["max_abs"], 1.0);
  EXPECT_TRUE(w.events_of("recv_grafted", role::target).empty());
  const auto sent = w.events_of("send", role::baseline);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].fields["compare_only"], true);
}

TEST(grafter_compare, failure_is_a_compare_skipped_event) {
  local_world w;
  w.config.b2t_filter.reset();
  w.config.compare_filter = "name == 'x'";
  at::Tensor target = at::zeros({4});
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(at::ones({3}), {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  const auto skipped = w.events_of("compare_skipped", role::target);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].fields["error_kind"], "transform_error");
}

TEST(grafter_compare, matching_two_of_three_filters_is_a_conflict) {
  local_world w;
  w.config.compare_filter = "name == 'x'";  // b2t_filter is name == 'x' too
  w.run([&](role, int, grafter& g) {
    at::Tensor t = at::ones({2});
    g.maybe_intercept(t, {{"name", "x"}});
    EXPECT_FALSE(g.has_group());
  });
  const auto conflicts = w.sink->events_of("filter_conflict");
  ASSERT_EQ(conflicts.size(), 2u);
  EXPECT_EQ(conflicts[0].fields["filters"], "b2t_filter and compare_filter");
}

}  // namespace
}  // namespace graft
