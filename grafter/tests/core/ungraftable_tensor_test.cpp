// A tensor whose values cannot travel as raw bytes (sparse, quantized, meta,
// nested) is refused on its own rank before anything moves: a sender takes
// part as absent, so its receivers skip the call and the exchange stays in
// step; a target that cannot be written in place is skipped, unchanged.
#include <graft/event_sink.hpp>
#include <graft/grafter.hpp>

#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::local_world;
using graft_test::values;

std::string message_of(const event& e) { return e.fields.value("message", std::string()); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

at::Tensor on_meta(std::vector<std::int64_t> shape) {
  return at::empty(shape, at::TensorOptions().device(at::kMeta));
}

// Two calls: the first sends `sent`, the second a plain tensor, each into
// the same target, so the test sees both the refusal and that grafting goes on.
struct sender_outcome {
  std::vector<event> send_skipped;
  std::vector<event> recv_skipped;
  std::vector<double> target_after_first;
  std::vector<double> target_after_second;
  bool both_active = false;
};

sender_outcome send_then_send_plain(const at::Tensor& sent) {
  local_world w;
  at::Tensor target = at::full({2, 3}, 7.0f);
  sender_outcome out;
  std::vector<bool> active(2, false);
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(sent, {{"name", "x"}});
      g.maybe_intercept(at::full({2, 3}, 5.0f), {{"name", "x"}});
      active[0] = g.active();
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
      out.target_after_first = values(target);
      g.maybe_intercept(target, {{"name", "x"}});
      out.target_after_second = values(target);
      active[1] = g.active();
    }
  });
  out.send_skipped = w.events_of("send_skipped", role::baseline);
  out.recv_skipped = w.events_of("recv_skipped", role::target);
  out.both_active = active[0] && active[1];
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 1u) << "the second, plain call grafts";
  return out;
}

void expect_refused_sender(const at::Tensor& sent, const std::string& reason) {
  const sender_outcome out = send_then_send_plain(sent);
  ASSERT_EQ(out.send_skipped.size(), 1u);
  const event& e = out.send_skipped[0];
  EXPECT_EQ(e.fields["error_kind"], "ungraftable_tensor");
  EXPECT_EQ(e.fields["direction"], "b2t");
  EXPECT_TRUE(contains(message_of(e), "the tensor cannot be sent: " + reason)) << message_of(e);
  EXPECT_TRUE(contains(message_of(e), "takes part as 'absent'")) << message_of(e);

  ASSERT_EQ(out.recv_skipped.size(), 1u);
  EXPECT_EQ(out.recv_skipped[0].fields["error_kind"], "sender_absent");
  EXPECT_EQ(out.target_after_first, std::vector<double>(6, 7.0)) << "the target must be unchanged";
  EXPECT_EQ(out.target_after_second, std::vector<double>(6, 5.0));
  EXPECT_TRUE(out.both_active) << "an ungraftable tensor must not disable either grafter";
}

TEST(ungraftable_sender, sparse_tensor_is_sent_as_absent) {
  expect_refused_sender(at::full({2, 3}, 1.0f).to_sparse(), "its layout is Sparse");
}

TEST(ungraftable_sender, quantized_tensor_is_sent_as_absent) {
  expect_refused_sender(at::quantize_per_tensor(at::ones({2, 3}), 0.1, 0, at::kQInt8),
                        "it is quantized (qint8), and only plain dtypes can be grafted; dequantize()");
}

TEST(ungraftable_sender, meta_tensor_is_sent_as_absent) {
  expect_refused_sender(on_meta({2, 3}), "it is on the meta device and holds no values");
}

TEST(ungraftable_sender, nested_tensor_is_sent_as_absent) {
  expect_refused_sender(at::_nested_tensor_from_tensor_list({at::ones({1, 3}), at::ones({1, 3})}),
                        "it is a nested tensor");
}

// Grafts a plain tensor into `target` and returns the target's skip event.
event expect_target_refused(at::Tensor target) {
  local_world w;
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(at::full({2, 3}, 5.0f), {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  EXPECT_TRUE(w.events_of("recv_grafted", role::target).empty());
  EXPECT_TRUE(w.events_of("send_skipped", role::baseline).empty()) << "the sender's tensor is fine";
  const auto skipped = w.events_of("recv_skipped", role::target);
  EXPECT_EQ(skipped.size(), 1u);
  if (skipped.empty()) return event{};
  EXPECT_EQ(skipped[0].fields["error_kind"], "ungraftable_target");
  EXPECT_TRUE(contains(message_of(skipped[0]), "the target cannot be written: ")) << message_of(skipped[0]);
  return skipped[0];
}

TEST(ungraftable_target, sparse_target_is_skipped_unchanged) {
  const at::Tensor target = at::full({2, 3}, 7.0f).to_sparse();
  const event e = expect_target_refused(target);
  EXPECT_TRUE(contains(message_of(e), "to_dense()")) << message_of(e);
  EXPECT_EQ(values(target.to_dense()), std::vector<double>(6, 7.0));
}

TEST(ungraftable_target, quantized_target_is_skipped_unchanged) {
  const at::Tensor target = at::quantize_per_tensor(at::full({2, 3}, 0.7f), 0.1, 0, at::kQInt8);
  const at::Tensor before = target.int_repr().clone();
  const event e = expect_target_refused(target);
  EXPECT_TRUE(contains(message_of(e), "it is quantized (qint8)")) << message_of(e);
  EXPECT_TRUE(at::equal(target.int_repr(), before));
}

TEST(ungraftable_target, meta_target_is_skipped) {
  const event e = expect_target_refused(on_meta({2, 3}));
  EXPECT_TRUE(contains(message_of(e), "meta device")) << message_of(e);
}

}  // namespace
}  // namespace graft
