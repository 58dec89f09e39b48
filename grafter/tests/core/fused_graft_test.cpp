// The fused receive path (a transform's fused plan, written into the target in
// one pass) against the unfused one: same target bits, same event, and the
// target unchanged on every failure, with or without a plan.

#include <graft/grafter.hpp>
#include <graft/metrics.hpp>
#include <graft/tensor_info.hpp>
#include <graft/transform_loader.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::byte_checksum;
using graft_test::local_world;

struct graft_result {
  at::Tensor target;
  event recv;  // the target's recv_grafted or recv_skipped event
};

// A 1+1 b2t graft of sent into target through `chosen`.
graft_result graft_once(const transform& chosen, const at::Tensor& sent, at::Tensor target,
                        tags call_tags = {{"name", "x"}}) {
  local_world w;
  w.custom_transform = chosen;
  w.run([&](role side, int, grafter& g) {
    g.maybe_intercept(side == role::baseline ? sent : target, call_tags);
  });
  auto events = w.events_of("recv_grafted", role::target);
  const auto skipped = w.events_of("recv_skipped", role::target);
  events.insert(events.end(), skipped.begin(), skipped.end());
  EXPECT_EQ(events.size(), 1u);
  return {target, events.empty() ? event{} : events.front()};
}

// A transform with its plan, and a twin without (so always unfused) that
// counts how often its function runs.
struct transform_pair {
  transform fused;
  transform unfused;
  std::shared_ptr<std::atomic<int>> fused_fn_calls = std::make_shared<std::atomic<int>>(0);
};

transform_pair doubling() {
  transform_pair p;
  const auto fn = [](const graft_transform_input& in) {
    return in.received_list.at(static_cast<std::size_t>(in.recv_rank)) * 2;
  };
  p.fused = transform{"double",
                      [fn, calls = p.fused_fn_calls](const graft_transform_input& in) {
                        ++*calls;
                        return fn(in);
                      },
                      [](const graft_transform_input& in) {
                        return std::optional<fused_plan>(
                            fused_plan{static_cast<std::size_t>(in.recv_rank), 2.0});
                      }};
  p.unfused = transform{"double", fn};
  return p;
}

transform_pair identity() {
  transform_pair p;
  const transform builtin = identity_by_rank();
  p.fused = transform{builtin.name,
                      [fn = builtin.fn, calls = p.fused_fn_calls](const graft_transform_input& in) {
                        ++*calls;
                        return fn(in);
                      },
                      builtin.plan};
  p.unfused = transform{builtin.name, builtin.fn};
  return p;
}

at::Tensor sample(at::ScalarType type, std::int64_t n, int seed) {
  at::manual_seed(seed);
  return (at::randn({n}) * 3).to(type);
}

// Checks everything the two paths must share, for one sent/target pair.
void expect_same_graft(const transform_pair& pair, const at::Tensor& sent,
                       const at::Tensor& target_before) {
  const graft_result fused = graft_once(pair.fused, sent, target_before.clone());
  const graft_result unfused = graft_once(pair.unfused, sent, target_before.clone());
  EXPECT_EQ(*pair.fused_fn_calls, 0) << "the fused path never runs the transform's function";
  ASSERT_EQ(fused.recv.kind, "recv_grafted");
  ASSERT_EQ(unfused.recv.kind, "recv_grafted");
  EXPECT_EQ(byte_checksum(fused.target), byte_checksum(unfused.target));
  for (const char* field : {"before", "candidate", "metrics", "cast", "transform", "n_senders"}) {
    EXPECT_EQ(fused.recv.fields.value(field, nlohmann::json()),
              unfused.recv.fields.value(field, nlohmann::json()))
        << field;
  }
  EXPECT_EQ(fused.recv.fields.size(), unfused.recv.fields.size());
}

TEST(fused_graft, identity_float32_matches_unfused_bit_for_bit) {
  expect_same_graft(identity(), sample(at::kFloat, 100'003, 1), sample(at::kFloat, 100'003, 2));
}

TEST(fused_graft, identity_bfloat16_matches_unfused_bit_for_bit) {
  expect_same_graft(identity(), sample(at::kBFloat16, 70'001, 3), sample(at::kBFloat16, 70'001, 4));
}

TEST(fused_graft, doubling_float32_and_bfloat16_match_unfused) {
  expect_same_graft(doubling(), sample(at::kFloat, 100'003, 5), sample(at::kFloat, 100'003, 6));
  expect_same_graft(doubling(), sample(at::kBFloat16, 33'333, 7), sample(at::kBFloat16, 33'333, 8));
}

TEST(fused_graft, mixed_dtypes_cast_as_the_unfused_path_does) {
  expect_same_graft(identity(), sample(at::kFloat, 50'000, 9), sample(at::kBFloat16, 50'000, 10));
  expect_same_graft(doubling(), sample(at::kFloat, 50'000, 11), sample(at::kBFloat16, 50'000, 12));
  expect_same_graft(doubling(), sample(at::kBFloat16, 50'000, 13), sample(at::kFloat, 50'000, 14));
  expect_same_graft(doubling(), sample(at::kDouble, 999, 15), sample(at::kHalf, 999, 16));
}

TEST(fused_graft, non_finite_values_are_counted_alike) {
  at::Tensor sent = sample(at::kFloat, 40'000, 17);
  sent[5] = std::numeric_limits<float>::quiet_NaN();
  sent[39'000] = std::numeric_limits<float>::infinity();
  at::Tensor target = sample(at::kFloat, 40'000, 18);
  target[7] = -std::numeric_limits<float>::infinity();
  expect_same_graft(doubling(), sent, target);
}

// The event must describe the same values that describe() and compare()
// report on their own, whichever path wrote them.
TEST(fused_graft, event_agrees_with_describe_and_compare) {
  const at::Tensor sent = sample(at::kBFloat16, 80'000, 19);
  const at::Tensor before = sample(at::kFloat, 80'000, 20);
  const graft_result r = graft_once(doubling().fused, sent, before.clone());
  const at::Tensor candidate = sent * 2;
  EXPECT_TRUE(at::equal(r.target, candidate.to(at::kFloat)));
  EXPECT_EQ(r.recv.fields["before"], nlohmann::json(describe(before)));
  EXPECT_EQ(r.recv.fields["candidate"], nlohmann::json(describe(candidate)));
  EXPECT_EQ(r.recv.fields["metrics"], nlohmann::json(compare(before, r.target)));
  EXPECT_EQ(r.recv.fields["cast"], "bfloat16 -> float32");
}

TEST(fused_graft, non_contiguous_target_falls_back_and_still_grafts) {
  const transform_pair pair = doubling();
  const at::Tensor sent = sample(at::kFloat, 600, 21).reshape({20, 30});
  at::Tensor base = sample(at::kFloat, 600, 22).reshape({30, 20});
  const at::Tensor target = base.t();  // a (20, 30) view, not contiguous
  const at::Tensor before = target.clone();
  const graft_result r = graft_once(pair.fused, sent, target);
  EXPECT_EQ(*pair.fused_fn_calls, 1) << "no fused write into a non-contiguous target";
  EXPECT_TRUE(at::equal(base.t(), sent * 2));
  EXPECT_EQ(r.recv.fields["metrics"], nlohmann::json(compare(before, sent * 2)));
}

// ---- failures: target unchanged, with a plan offered ----

void expect_unchanged_skip(const transform& chosen, const at::Tensor& sent, const at::Tensor& target,
                           const std::string& kind, tags call_tags = {{"name", "x"}}) {
  const auto before = byte_checksum(target);
  const graft_result r = graft_once(chosen, sent, target, std::move(call_tags));
  EXPECT_EQ(r.recv.kind, "recv_skipped");
  EXPECT_EQ(r.recv.fields.value("error_kind", ""), kind);
  EXPECT_EQ(byte_checksum(target), before) << "target changed on a " << kind << " failure";
  EXPECT_EQ(r.recv.fields["before"], nlohmann::json(describe(target)));
}

TEST(fused_graft_failures, shape_mismatch_with_identity_plan) {
  expect_unchanged_skip(identity().fused, at::ones({5}), at::zeros({4}), "transform_error");
}

TEST(fused_graft_failures, plan_naming_a_wrong_shape_source_is_not_used) {
  transform t = doubling().fused;
  t.fn = [](const graft_transform_input&) { return at::ones({9}); };
  expect_unchanged_skip(t, at::ones({5}), at::zeros({4}), "shape_mismatch");
}

TEST(fused_graft_failures, plan_out_of_range_falls_back_to_the_function) {
  transform t = doubling().fused;
  t.plan = [](const graft_transform_input&) { return std::optional<fused_plan>(fused_plan{7, 2.0}); };
  t.fn = [](const graft_transform_input&) -> at::Tensor { throw std::runtime_error("fn ran"); };
  expect_unchanged_skip(t, at::ones({4}), at::zeros({4}), "transform_raised");
}

TEST(fused_graft_failures, throwing_plan_falls_back_to_the_function) {
  transform t = doubling().fused;
  t.plan = [](const graft_transform_input&) -> std::optional<fused_plan> {
    throw std::runtime_error("plan broke");
  };
  const graft_result r = graft_once(t, at::full({4}, 3.0f), at::zeros({4}));
  EXPECT_EQ(r.recv.kind, "recv_grafted");
  EXPECT_TRUE(at::equal(r.target, at::full({4}, 6.0f)));
}

TEST(fused_graft_failures, complex_sender_is_refused) {
  transform t = identity().fused;
  expect_unchanged_skip(t, at::ones({4}, at::kComplexFloat), at::zeros({4}), "dtype_incompatible");
}

TEST(fused_graft_failures, sender_without_a_tensor) {
  const transform t = doubling().fused;
  const at::Tensor target = at::full({4}, 5.0f);
  const auto before = byte_checksum(target);
  local_world w;
  w.custom_transform = t;
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept_non_tensor("NoneType", {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  EXPECT_EQ(byte_checksum(target), before);
  ASSERT_EQ(w.events_of("recv_skipped", role::target).size(), 1u);
}

TEST(fused_graft_failures, target_that_copy_refuses_is_never_written_in_one_pass) {
  // copy_ refuses an in-place write into a leaf that requires grad; the fused
  // path must not sneak past that.
  at::Tensor target = at::zeros({4}).set_requires_grad(true);
  expect_unchanged_skip(doubling().fused, at::ones({4}), target, "copy_failed");
}

TEST(fused_graft_failures, inference_tensor_target_is_left_to_copy) {
  at::Tensor target;
  {
    c10::InferenceMode guard;
    target = at::zeros({4});
  }
  expect_unchanged_skip(doubling().fused, at::ones({4}), target, "copy_failed");
}

TEST(fused_graft, fused_write_bumps_the_version_as_copy_does) {
  at::Tensor target = at::zeros({4});
  const auto version = target._version();
  graft_once(doubling().fused, at::ones({4}), target);
  EXPECT_GT(target._version(), version);
}

// ---- plugins: the fused opt-in across the library boundary ----

// measure=off: the plan's unmeasured write gives the unfused path's bits
// and bumps the version like copy_.
TEST(fused_graft, unmeasured_plans_write_what_the_function_returns) {
  const transform_pair pair = doubling();
  const auto graft_unmeasured = [](const transform& chosen, const at::Tensor& sent, at::Tensor target) {
    local_world w;
    w.config.measure = measure_mode::off;
    w.custom_transform = chosen;
    w.run([&](role side, int, grafter& g) {
      g.maybe_intercept(side == role::baseline ? sent : target, {{"name", "x"}});
    });
    EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 1u);
    return target;
  };
  int seed = 60;
  for (const at::ScalarType sent_type : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const at::ScalarType target_type : {sent_type, at::kFloat}) {
      const at::Tensor sent = sample(sent_type, 3 * 1024 + 5, ++seed);
      const at::Tensor before = sample(target_type, 3 * 1024 + 5, ++seed);
      const at::Tensor target = before.clone();
      const auto version = target._version();
      const at::Tensor fused = graft_unmeasured(pair.fused, sent, target);
      const at::Tensor unfused = graft_unmeasured(pair.unfused, sent, before.clone());
      EXPECT_EQ(byte_checksum(fused), byte_checksum(unfused)) << sent_type << " -> " << target_type;
      EXPECT_TRUE(at::equal(fused, (sent * 2).to(target_type))) << sent_type << " -> " << target_type;
      EXPECT_GT(target._version(), version) << sent_type << " -> " << target_type;
    }
  }
  EXPECT_EQ(*pair.fused_fn_calls, 0);
}

TEST(fused_graft_plugin, opted_in_plugin_has_a_plan_and_grafts_like_the_plain_one) {
  const transform fused = load_transform(std::string(GRAFT_TEST_FUSED_DOUBLE_PLUGIN) + ":fused_double");
  const transform plain = load_transform(std::string(GRAFT_TEST_PLUGIN_DOUBLE) + ":double_it");
  ASSERT_TRUE(static_cast<bool>(fused.plan));
  EXPECT_FALSE(static_cast<bool>(plain.plan)) << "a transform registered without a plan runs unfused";

  const at::Tensor sent = sample(at::kBFloat16, 50'000, 24);
  const at::Tensor before = sample(at::kFloat, 50'000, 25);
  const graft_result a = graft_once(fused, sent, before.clone());
  const graft_result b = graft_once(plain, sent, before.clone());
  ASSERT_EQ(a.recv.kind, "recv_grafted");
  EXPECT_EQ(byte_checksum(a.target), byte_checksum(b.target));
  EXPECT_TRUE(at::equal(a.target, (sent * 2).to(at::kFloat)));
  for (const char* field : {"before", "candidate", "metrics", "cast"}) {
    EXPECT_EQ(a.recv.fields[field], b.recv.fields[field]) << field;
  }
}

TEST(fused_graft_plugin, plan_that_throws_in_the_plugin_means_no_plan) {
  const transform fused = load_transform(std::string(GRAFT_TEST_FUSED_DOUBLE_PLUGIN) + ":fused_double");
  const tags refuse{{"name", "x"}, {"refuse_plan", true}};
  const graft_transform_input in{refuse, {at::ones({2})}, {nullptr}, at::zeros({2}), direction::b2t, 0, 1, {0}};
  EXPECT_FALSE(fused.plan(in).has_value());
  const tags plain{{"name", "x"}};
  const graft_transform_input ok{plain, {at::ones({2})}, {nullptr}, at::zeros({2}), direction::b2t, 0, 1, {0}};
  const std::optional<fused_plan> plan = fused.plan(ok);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->source, 0u);
  EXPECT_EQ(plan->scale, 2.0);
}

}  // namespace
}  // namespace graft
