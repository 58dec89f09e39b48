// measure=off: a graft writes exactly what a measured one writes, and its
// events describe layouts only (no statistics, no metrics); failures still
// leave the target unchanged; compare-only names still measure.
#include <graft/grafter.hpp>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::byte_checksum;
using graft_test::local_world;

// One b2t graft of `sent` into a copy of `target`; returns the written
// target and the receiver's event.
std::pair<at::Tensor, event> graft_once(measure_mode mode, const at::Tensor& sent, const at::Tensor& target,
                                        const char* kind) {
  local_world w;
  w.config.measure = mode;
  at::Tensor receiving = target.clone();
  w.run([&](role side, int, grafter& g) {
    g.maybe_intercept(side == role::baseline ? sent : receiving, {{"name", "x"}});
  });
  const auto events = w.events_of(kind, role::target);
  EXPECT_EQ(events.size(), 1u) << kind;
  return {receiving, events.empty() ? event{} : events[0]};
}

TEST(grafter_measure_off, writes_what_a_measured_graft_writes) {
  at::manual_seed(5);
  for (const at::ScalarType sent_type : {at::kFloat, at::kBFloat16, at::kDouble}) {
    const at::Tensor sent = (at::randn({3, 70}) * 3).to(sent_type);
    const at::Tensor target = at::randn({3, 70}).to(at::kBFloat16);
    const auto [measured, measured_event] = graft_once(measure_mode::full, sent, target, "recv_grafted");
    const auto [unmeasured, unmeasured_event] = graft_once(measure_mode::off, sent, target, "recv_grafted");
    EXPECT_EQ(byte_checksum(unmeasured), byte_checksum(measured)) << c10::toString(sent_type);
    EXPECT_NE(byte_checksum(unmeasured), byte_checksum(target));
    EXPECT_TRUE(measured_event.fields.contains("metrics"));
    EXPECT_FALSE(unmeasured_event.fields.contains("metrics"));
    EXPECT_EQ(unmeasured_event.fields.value("cast", ""), measured_event.fields.value("cast", ""));
    for (const char* side : {"before", "candidate"}) {
      const nlohmann::json& info = unmeasured_event.fields.at(side);
      EXPECT_EQ(info.at("measured"), false) << side;
      EXPECT_FALSE(info.contains("min")) << side;
      EXPECT_FALSE(info.contains("nan_count")) << side;
      EXPECT_EQ(info.at("shape"), measured_event.fields.at(side).at("shape")) << side;
      EXPECT_EQ(info.at("dtype"), measured_event.fields.at(side).at("dtype")) << side;
    }
  }
}

TEST(grafter_measure_off, sender_describes_its_layout_only) {
  local_world w;
  w.config.measure = measure_mode::off;
  at::Tensor target = at::zeros({4});
  w.run([&](role side, int, grafter& g) {
    g.maybe_intercept(side == role::baseline ? at::ones({4}) : target, {{"name", "x"}});
  });
  const auto sent = w.events_of("send", role::baseline);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].fields["tensor"]["measured"], false);
  EXPECT_TRUE(at::equal(target, at::ones({4})));
}

TEST(grafter_measure_off, failure_leaves_the_target_unchanged) {
  const at::Tensor target = at::randn({2, 4});
  const auto [after, skipped] = graft_once(measure_mode::off, at::ones({4}), target, "recv_skipped");
  EXPECT_EQ(byte_checksum(after), byte_checksum(target));
  EXPECT_EQ(skipped.fields["error_kind"], "transform_error");
  EXPECT_EQ(skipped.fields["before"]["measured"], false);
}

TEST(grafter_measure_off, non_contiguous_target_takes_copy_and_is_still_unmeasured) {
  const at::Tensor target = at::randn({5, 3}).t();
  const at::Tensor sent = at::randn({3, 5});
  const auto [after, grafted] = graft_once(measure_mode::off, sent, target, "recv_grafted");
  EXPECT_TRUE(at::equal(after, sent));
  EXPECT_FALSE(grafted.fields.contains("metrics"));
  EXPECT_EQ(grafted.fields["candidate"]["measured"], false);
}

TEST(grafter_measure_off, compare_only_names_still_measure) {
  local_world w;
  w.config.measure = measure_mode::off;
  w.config.b2t_filter.reset();
  w.config.compare_filter = "name == 'x'";
  at::Tensor target = at::tensor({1.0f, 2.0f, 4.0f});
  w.run([&](role side, int, grafter& g) {
    g.maybe_intercept(side == role::baseline ? at::tensor({1.0f, 2.0f, 3.0f}) : target, {{"name", "x"}});
  });
  const auto compared = w.events_of("compare", role::target);
  ASSERT_EQ(compared.size(), 1u);
  EXPECT_EQ(compared[0].fields["metrics"]["max_abs"], 1.0);
  EXPECT_TRUE(at::equal(target, at::tensor({1.0f, 2.0f, 4.0f})));
}

}  // namespace
}  // namespace graft
