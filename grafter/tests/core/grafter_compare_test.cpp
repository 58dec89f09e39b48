// Compare-only grafts: names flow baseline -> target like b2t, the receiver
// measures them against its own tensor and never writes it.
#include <graft/grafter.hpp>
#include <graft/metrics.hpp>

#include <limits>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
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

// The target's event of one 1+1 call of sent against target: a compare-only
// one, or a b2t graft, through `chosen` (default: identity by rank).
event receiver_event(bool compare_only, const at::Tensor& sent, const at::Tensor& target,
                     std::optional<transform> chosen = std::nullopt) {
  local_world w;
  w.custom_transform = std::move(chosen);
  if (compare_only) {
    w.config.b2t_filter.reset();
    w.config.compare_filter = "name == 'x'";
  }
  w.run([&](role side, int, grafter& g) { g.maybe_intercept(side == role::baseline ? sent : target, {{"name", "x"}}); });
  std::vector<event> events;
  for (const char* kind : {"compare", "compare_skipped", "recv_grafted", "recv_skipped"}) {
    for (auto& e : w.events_of(kind, role::target)) events.push_back(std::move(e));
  }
  EXPECT_EQ(events.size(), 1u);
  return events.empty() ? event{} : events.front();
}

at::Tensor sample(at::ScalarType type, std::int64_t n, int seed) {
  at::manual_seed(seed);
  return (at::randn({n}) * 3).to(type);
}

// A compare-only event is the graft's, field for field and bit for bit,
// while the target keeps its bytes and its version (nothing was written).
void expect_compare_is_the_graft(const at::Tensor& sent, const at::Tensor& target,
                                 std::optional<transform> chosen = std::nullopt) {
  const auto bytes = byte_checksum(target);
  const auto version = target._version();
  const event compared = receiver_event(true, sent, target, chosen);
  EXPECT_EQ(byte_checksum(target), bytes);
  EXPECT_EQ(target._version(), version) << "a compare-only call bumped the target's version";
  const event grafted = receiver_event(false, sent, target.clone(at::MemoryFormat::Preserve), chosen);
  ASSERT_EQ(compared.kind, "compare") << compared.fields.dump();
  ASSERT_EQ(grafted.kind, "recv_grafted") << grafted.fields.dump();
  for (const char* field : {"before", "candidate", "metrics", "cast", "transform", "n_senders"}) {
    EXPECT_EQ(compared.fields.value(field, nlohmann::json()), grafted.fields.value(field, nlohmann::json()))
        << field;
  }
}

TEST(grafter_compare, event_is_the_grafts_bit_for_bit) {
  const std::int64_t n = 70'001;  // several chunks and a partial lane step
  expect_compare_is_the_graft(sample(at::kFloat, n, 1), sample(at::kFloat, n, 2));
  expect_compare_is_the_graft(sample(at::kBFloat16, n, 3), sample(at::kBFloat16, n, 4));
  expect_compare_is_the_graft(sample(at::kFloat, n, 5), sample(at::kBFloat16, n, 6));  // cast
  at::Tensor sent = sample(at::kFloat, n, 7);
  sent[9] = std::numeric_limits<float>::quiet_NaN();
  expect_compare_is_the_graft(sent, sample(at::kFloat, n, 8));
  // Views: the event describes the target's own strides, not a copy's.
  const at::Tensor transposed = sample(at::kFloat, 600, 9).reshape({30, 20}).t();
  expect_compare_is_the_graft(sample(at::kFloat, 600, 10).reshape({20, 30}), transposed);
  const at::Tensor every_other = sample(at::kFloat, 1200, 11).reshape({20, 60}).slice(1, 0, 60, 2);
  EXPECT_EQ(receiver_event(true, at::ones({20, 30}), every_other).fields["before"]["stride"],
            nlohmann::json({60, 2}));
}

TEST(grafter_compare, a_transform_with_a_fused_plan_measures_as_its_graft) {
  transform doubling{"double",
                     [](const graft_transform_input& in) { return in.received_list.at(0) * 2; },
                     [](const graft_transform_input&) { return std::optional<fused_plan>(fused_plan{0, 2.0}); }};
  expect_compare_is_the_graft(sample(at::kBFloat16, 40'000, 11), sample(at::kBFloat16, 40'000, 12), doubling);
}

// Targets a graft may not write can still be measured: nothing is written.
TEST(grafter_compare, measures_targets_that_cannot_be_written) {
  const at::Tensor sent = sample(at::kFloat, 1000, 13);
  const at::Tensor leaf = sample(at::kFloat, 1000, 14).requires_grad_();
  at::Tensor inference;
  {
    const c10::InferenceMode guard;
    inference = sample(at::kFloat, 1000, 15);
  }
  for (const at::Tensor& target : {leaf, inference}) {
    const auto bytes = byte_checksum(target);
    const event compared = receiver_event(true, sent, target);
    ASSERT_EQ(compared.kind, "compare") << compared.fields.dump();
    EXPECT_EQ(compared.fields["metrics"], nlohmann::json(compare(target.detach(), sent)));
    EXPECT_EQ(byte_checksum(target), bytes);
    EXPECT_EQ(receiver_event(false, sent, target).kind, "recv_skipped") << "a graft cannot write it";
  }
}

}  // namespace
}  // namespace graft
