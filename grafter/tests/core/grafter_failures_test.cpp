// Every way a graft can fail leaves the target bit for bit unchanged and says
// why in an event; the host program is never crashed.
#include <graft/error.hpp>
#include <graft/event_sink.hpp>
#include <graft/grafter.hpp>
#include <graft/transform_loader.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::byte_checksum;
using graft_test::local_world;
using graft_test::values;

std::string message_of(const event& e) { return e.fields.value("message", std::string()); }

// Runs a 1+1 b2t graft of `sent` into `target` and returns the target's skip event.
event expect_skipped(local_world& w, const at::Tensor& sent, at::Tensor target) {
  const auto before = byte_checksum(target);
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(sent, {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  EXPECT_EQ(byte_checksum(target), before) << "the target must be unchanged bit for bit";
  const auto skipped = w.events_of("recv_skipped", role::target);
  EXPECT_EQ(skipped.size(), 1u);
  EXPECT_TRUE(w.events_of("recv_grafted", role::target).empty());
  return skipped.empty() ? event{} : skipped[0];
}

TEST(grafter_failures, default_transform_shape_mismatch_asks_for_a_transform) {
  local_world w;
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::full({4}, 7.0f));
  EXPECT_EQ(e.fields["error_kind"], "transform_error");
  EXPECT_NE(message_of(e).find("requires matching shapes"), std::string::npos);
  EXPECT_NE(message_of(e).find("DUMPER_GRAFTER_TRANSFORM_PATH"), std::string::npos);
  EXPECT_NE(message_of(e).find("target tensor unchanged"), std::string::npos);
}

// The loader a host passes in (the Python package's) replaces load_transform,
// and its failures are the same transform_load event with their kind.
TEST(grafter_failures, host_loader_loads_the_spec_and_its_failure_is_a_load_event) {
  graft_config c = local_world::default_config();
  c.side = role::target;
  c.baseline_world_size = 1;
  c.target_world_size = 1;
  c.transform_path = "pkg.module.missing";
  auto sink = std::make_shared<memory_sink>();
  grafter_options options;
  options.sink = sink;
  std::string asked;
  options.load_transform = [&](std::string_view spec) -> transform {
    asked = std::string(spec);
    throw plugin_load_error(plugin_load_error_kind::symbol_not_found, "module 'pkg.module' has no 'missing'");
  };
  const grafter g(c, side_rank{0, 1}, options);
  EXPECT_EQ(asked, "pkg.module.missing");
  const auto loads = sink->events_of("transform_load");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].fields["error_kind"], "symbol_not_found");
  EXPECT_EQ(loads[0].fields["spec"], "pkg.module.missing");
  EXPECT_EQ(message_of(loads[0]), "module 'pkg.module' has no 'missing'");
}

// DUMPER_GRAFTER_EVENTS_PATH: the events go there as well as to the host's
// own sink, under the name its placeholders give this rank.
TEST(grafter_failures, events_path_gets_the_events_beside_the_host_sink) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("graft_events_path_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  graft_config c = local_world::default_config();
  c.side = role::target;
  c.baseline_world_size = 2;
  c.target_world_size = 2;
  c.transform_path = "pkg.module.fn";  // refused in C++: one transform_load event at construction
  c.events_path = (dir / "ev-{role}-{rank}-{graft_rank}.jsonl").string();
  auto sink = std::make_shared<memory_sink>();
  grafter_options options;
  options.sink = sink;
  { const grafter g(c, side_rank{1, 2}, options); }
  ASSERT_EQ(sink->events_of("transform_load").size(), 1u);
  std::ifstream file(dir / "ev-target-1-3.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(file, line)) << "no events in " << (dir / "ev-target-1-3.jsonl");
  const nlohmann::json written = nlohmann::json::parse(line);
  EXPECT_EQ(written["kind"], "transform_load");
  EXPECT_EQ(written["error_kind"], "malformed_spec");
  EXPECT_EQ(written["graft_rank"], 3);
  std::filesystem::remove_all(dir);
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// An events log the grafter cannot open (its folder is gone) or write (a
// full disk) never stops the host program: one stderr line, and the grafts
// and the host's own sink go on.
TEST(grafter_failures, an_events_path_that_cannot_be_opened_is_said_once_and_grafting_goes_on) {
  local_world w;
  w.config.events_path = "/nonexistent-graft-folder/events-{role}-{rank}.jsonl";
  testing::internal::CaptureStderr();
  w.run([](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::full({3}, 2.0f) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) EXPECT_TRUE(at::equal(t, at::full({3}, 2.0f)));
  });
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(said, "DUMPER_GRAFTER_EVENTS_PATH: event log '/nonexistent-graft-folder/events-"), 2u) << said;
  EXPECT_NE(said.find("grafting goes on without it"), std::string::npos) << said;
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 1u);
}

TEST(grafter_failures, an_events_log_on_a_full_disk_is_said_once_and_grafting_goes_on) {
  local_world w;
  w.baseline_world_size = 1;
  w.config.events_path = "/dev/full";
  testing::internal::CaptureStderr();
  w.run([](role side, int, grafter& g) {
    for (int call = 0; call < 3; ++call) {
      at::Tensor t = side == role::baseline ? at::full({3}, float(call)) : at::full({3}, -1.0f);
      g.maybe_intercept(t, {{"name", "x"}});
      if (side == role::target) EXPECT_TRUE(at::equal(t, at::full({3}, float(call))));
    }
  });
  const std::string said = testing::internal::GetCapturedStderr();
  // One line per rank's log, not one per event.
  EXPECT_EQ(count_of(said, "event log '/dev/full' cannot be written (No space left on device)"), 2u) << said;
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 3u);
}

TEST(grafter_failures, throwing_transform) {
  local_world w;
  w.custom_transform = transform{"throws", [](const graft_transform_input&) -> at::Tensor {
                                   throw std::runtime_error("intentional test error from user transform");
                                 }};
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::full({3}, 9.0f));
  EXPECT_EQ(e.fields["error_kind"], "transform_raised");
  EXPECT_NE(message_of(e).find("intentional test error from user transform"), std::string::npos);
  EXPECT_NE(message_of(e).find("'throws'"), std::string::npos);
}

// A 1+1 call of `sent` into `target` through a transform that adds 1 to the
// target (through a view of it) before it returns or throws; the target's
// event. kind is "recv_skipped" for a b2t graft, "compare_skipped" for a
// compare-only call.
event skip_of_a_transform_writing_the_target(bool compare_only, bool also_throws, at::Tensor& target) {
  local_world w;
  if (compare_only) {
    w.config.b2t_filter.reset();
    w.config.compare_filter = "name == 'x'";
  }
  w.custom_transform = transform{"writes_target", [also_throws](const graft_transform_input& in) -> at::Tensor {
                                   in.target.view({-1}).add_(1);
                                   if (also_throws) throw std::runtime_error("and then it failed");
                                   return in.received_list.at(0);
                                 }};
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(at::tensor({1.0f, 2.0f, 3.0f}), {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  EXPECT_TRUE(w.events_of("recv_grafted", role::target).empty());
  EXPECT_TRUE(w.events_of("compare", role::target).empty());
  const auto skipped = w.events_of(compare_only ? "compare_skipped" : "recv_skipped", role::target);
  EXPECT_EQ(skipped.size(), 1u);
  return skipped.empty() ? event{} : skipped[0];
}

// The target a transform wrote into no longer holds what the graft would
// measure against: skipped, nothing written, and the event says who changed
// the target (never "target tensor unchanged").
TEST(grafter_failures, a_transform_writing_the_target_is_skipped_and_named) {
  for (const bool compare_only : {false, true}) {
    at::Tensor target = at::full({3}, 9.0f);
    const event e = skip_of_a_transform_writing_the_target(compare_only, /*also_throws=*/false, target);
    EXPECT_EQ(e.fields["error_kind"], "transform_wrote_target") << compare_only;
    EXPECT_TRUE(at::equal(target, at::full({3}, 10.0f))) << "only the transform's write, never the graft's";
    const std::string message = message_of(e);
    EXPECT_EQ(message.rfind("transform 'writes_target' wrote into the target", 0), 0u) << message;
    EXPECT_NE(message.find("(target tensor changed by the transform, not by the graft)"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("target tensor unchanged"), std::string::npos) << message;
    EXPECT_EQ(e.fields["before"]["max"], 10.0) << "the event describes the target as the call leaves it";
  }
}

TEST(grafter_failures, a_transform_writing_the_target_and_throwing_says_both) {
  at::Tensor target = at::full({3}, 9.0f);
  const event e = skip_of_a_transform_writing_the_target(false, /*also_throws=*/true, target);
  EXPECT_EQ(e.fields["error_kind"], "transform_wrote_target");
  EXPECT_NE(message_of(e).find("It also failed: transform 'writes_target' raised: and then it failed"),
            std::string::npos)
      << message_of(e);
}

// libtorch's errors (TORCH_CHECK, any failing ATen op) carry a C++ backtrace
// in what(); the event has the message alone.
bool has_backtrace(const std::string& message) {
  return message.find("Exception raised from") != std::string::npos || message.find("frame #") != std::string::npos;
}

TEST(grafter_failures, transform_raising_a_libtorch_error_is_reported_without_its_backtrace) {
  local_world w;
  w.custom_transform = transform{"checks", [](const graft_transform_input&) -> at::Tensor {
                                   TORCH_CHECK(false, "the shards disagree");
                                 }};
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::full({3}, 9.0f));
  EXPECT_EQ(e.fields["error_kind"], "transform_raised");
  EXPECT_EQ(message_of(e), "transform 'checks' raised: the shards disagree (target tensor unchanged)");
}

// An expanded target (a broadcast view: every element is one location)
// passes every check but copy_'s own.
TEST(grafter_failures, target_that_copy_refuses_is_reported_without_the_backtrace) {
  local_world w;
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::zeros({1}).expand({3}));
  EXPECT_EQ(e.fields["error_kind"], "copy_failed");
  const std::string message = message_of(e);
  EXPECT_EQ(message.rfind("copying the candidate into the target failed: ", 0), 0u) << message;
  EXPECT_NE(message.find("single memory location"), std::string::npos) << message;
  EXPECT_FALSE(has_backtrace(message)) << message;
}

TEST(grafter_failures, transform_throwing_something_else_than_an_exception) {
  local_world w;
  w.custom_transform = transform{"throws_an_int", [](const graft_transform_input&) -> at::Tensor { throw 42; }};
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::full({3}, 9.0f));
  EXPECT_EQ(e.fields["error_kind"], "transform_raised");
  EXPECT_NE(message_of(e).find("not a std::exception"), std::string::npos);
}

// Grafts `sent` into a copy of `target` in a 1+1 world; returns the copy.
at::Tensor graft_once(local_world& w, const tags& t, const at::Tensor& sent, const at::Tensor& target) {
  at::Tensor received = target.clone();
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(sent, t);
    } else {
      g.maybe_intercept(received, t);
    }
    EXPECT_TRUE(g.active());
  });
  return received;
}

// ATen casts into an integer dtype with static_cast: NaN, an infinity or a
// value beyond the range would come out as whatever the machine gives.
TEST(grafter_failures, a_cast_into_an_integer_target_that_cannot_hold_the_values_is_refused) {
  const auto refusal = [](const at::Tensor& sent, const at::Tensor& target) {
    local_world w;
    const event e = expect_skipped(w, sent, target);
    EXPECT_EQ(e.fields["error_kind"], "cast_out_of_range") << message_of(e);
    return message_of(e);
  };
  EXPECT_EQ(refusal(at::tensor({1.0f, NAN, 3.0f}), at::zeros({3}, at::kInt)),
            "the candidate (float32) cannot be cast to the int32 target: it holds 1 NaN or infinite value, which "
            "no cast to int32 defines; graft a tensor whose dtype holds these values (target tensor unchanged)");
  EXPECT_NE(refusal(at::tensor({1.0f, 3e9f}), at::zeros({2}, at::kInt))
                .find("it holds values from 1 to 3e+09, beyond int32's range [-2147483648, 2147483647]"),
            std::string::npos);
  EXPECT_NE(refusal(at::tensor({1, 300}, at::kLong), at::zeros({2}, at::kByte))
                .find("it holds values from 1 to 300, beyond uint8's range [0, 255]"),
            std::string::npos);
}

TEST(grafter_failures, a_cast_into_an_integer_target_within_its_range_grafts) {
  local_world w;
  const at::Tensor sent = at::tensor({1.5, -2.5, 2147483647.0, -2147483648.0}, at::kDouble);
  const at::Tensor grafted = graft_once(w, {{"name", "x"}}, sent, at::zeros({4}, at::kInt));
  EXPECT_TRUE(at::equal(grafted, at::tensor({1, -2, 2147483647, -2147483647 - 1}, at::kInt))) << grafted;
  const auto events = w.events_of("recv_grafted", role::target);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].fields["cast"], "float64 -> int32");
}

// Two threads of the target call one grafter with a matched name: the first
// waits in the exchange for the baseline, which sends only once the second
// call has been refused. Exactly one of the two grafts, whichever came first.
TEST(grafter_failures, a_matched_call_from_a_second_thread_while_one_runs_is_refused) {
  local_world w;
  at::Tensor first = at::zeros({3});
  at::Tensor second = at::zeros({3});
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (w.events_of("concurrent_call", role::target).empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      g.maybe_intercept(at::tensor({1.0f, 2.0f, 3.0f}), {{"name", "x"}});
      return;
    }
    std::thread other([&] { g.maybe_intercept(second, {{"name", "x"}}); });
    g.maybe_intercept(first, {{"name", "x"}});
    other.join();
    EXPECT_TRUE(g.active()) << "a refused call does not turn the grafter off";
  });
  const auto refused = w.events_of("concurrent_call", role::target);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(message_of(refused[0]).find("a grafter serves one thread at a time, so this call is skipped"),
            std::string::npos)
      << message_of(refused[0]);
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 1u);
  const at::Tensor sent = at::tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(at::equal(first, sent) != at::equal(second, sent)) << first << second;
  EXPECT_TRUE(at::equal(first, at::zeros({3})) || at::equal(second, at::zeros({3})))
      << "the refused call's value is left as it is";
}

struct failing_sink : event_sink {
  void write(const event&) override { throw std::runtime_error("disk full"); }
};

TEST(grafter_failures, a_failing_sink_fails_no_call_and_its_events_go_to_stderr) {
  local_world w;
  w.also = std::make_shared<failing_sink>();
  testing::internal::CaptureStderr();
  const at::Tensor got = graft_once(w, {{"name", "x"}}, at::tensor({1.0f, 2.0f}), at::zeros({2}));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(at::equal(got, at::tensor({1.0f, 2.0f})));
  EXPECT_EQ(w.events_of("recv_grafted", role::target).size(), 1u);
  EXPECT_NE(err.find("graft: the event sink failed (disk full); the event: [graft role=target"), std::string::npos)
      << err;
  // Both ranks are threads of this process: each line is whole, never two
  // ranks' pieces run together.
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("graft: the event sink failed (disk full); the event: [graft role=", 0), 0u) << line;
    EXPECT_EQ(line.find("graft:", 1), std::string::npos) << line;
  }
}

TEST(grafter_failures, tags_that_are_not_utf8_are_logged_with_replacement_characters) {
  local_world w;
  std::ostringstream lines;
  w.also = std::make_shared<text_sink>(lines);
  const at::Tensor got = graft_once(w, {{"name", "x"}, {"note", "bad\xff"}}, at::tensor({3.0f}), at::zeros({1}));
  EXPECT_TRUE(at::equal(got, at::tensor({3.0f})));
  EXPECT_NE(lines.str().find("recv_grafted direction=b2t tags={\"name\":\"x\",\"note\":\"bad\xEF\xBF\xBD\"}"),
            std::string::npos)
      << lines.str();
}

// An exchange of the host's own (grafter_options::make_exchange) that fails
// where no failure is expected.
struct exchange_that_cannot_describe : exchange {
  received run(const exchange_call&, const contribution*) override { return {}; }
  nlohmann::json describe() const override { throw std::runtime_error("describe broke"); }
};

// A grafter of a 1+1 world on `side` alone, with the host's own exchange.
grafter lone_grafter(role side, exchange_factory make_exchange, std::shared_ptr<memory_sink> sink) {
  graft_config c = local_world::default_config();
  c.side = side;
  c.baseline_world_size = c.target_world_size = 1;
  grafter_options options;
  options.sink = std::move(sink);
  options.make_exchange = std::move(make_exchange);
  return grafter(c, {0, 1}, options);
}

TEST(grafter_failures, an_unexpected_failure_is_an_internal_error_and_turns_the_grafter_off) {
  auto sink = std::make_shared<memory_sink>();
  grafter g = lone_grafter(
      role::target,
      [](const graft_config&, const rank_layout&) -> std::unique_ptr<exchange> {
        return std::make_unique<exchange_that_cannot_describe>();
      },
      sink);
  at::Tensor t = at::ones({2});
  EXPECT_NO_THROW(g.maybe_intercept(t, {{"name", "x"}}));
  EXPECT_FALSE(g.active());
  EXPECT_TRUE(at::equal(t, at::ones({2})));
  const auto errors = sink->events_of("internal_error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(message_of(errors[0]), "describe broke; the grafter is now disabled on this rank");
  EXPECT_EQ(errors[0].fields["tags"], (nlohmann::json{{"name", "x"}}));
}

TEST(grafter_failures, wrong_shape_candidate_is_never_broadcast) {
  local_world w;
  w.custom_transform = transform{"wrong_shape", [](const graft_transform_input&) { return at::zeros({99}); }};
  const auto e = expect_skipped(w, at::tensor({1.0f, 2.0f, 3.0f}), at::full({3}, 7.0f));
  EXPECT_EQ(e.fields["error_kind"], "shape_mismatch");
  EXPECT_NE(message_of(e).find("shape (99,) but the target has shape (3,)"), std::string::npos);
}

// copy_ would broadcast a [4] into a [2, 4] without a word; a graft refuses.
TEST(grafter_failures, broadcastable_candidate_is_refused) {
  local_world w;
  w.custom_transform = transform{"row", [](const graft_transform_input&) { return at::ones({4}); }};
  const auto e = expect_skipped(w, at::ones({4}), at::zeros({2, 4}));
  EXPECT_EQ(e.fields["error_kind"], "shape_mismatch");
}

TEST(grafter_failures, undefined_candidate) {
  local_world w;
  w.custom_transform = transform{"nothing", [](const graft_transform_input&) { return at::Tensor(); }};
  const auto e = expect_skipped(w, at::ones({3}), at::zeros({3}));
  EXPECT_EQ(e.fields["error_kind"], "transform_undefined");
}

TEST(grafter_failures, complex_candidate_for_a_real_target) {
  local_world w;
  w.custom_transform = transform{"complex", [](const graft_transform_input& in) {
                                   return at::zeros(in.target.sizes(), at::kComplexFloat);
                                 }};
  const auto e = expect_skipped(w, at::ones({3}), at::zeros({3}));
  EXPECT_EQ(e.fields["error_kind"], "dtype_incompatible");
}

TEST(grafter_failures, matched_non_tensor_takes_part_and_skips) {
  local_world w;
  at::Tensor target = at::full({3}, 5.0f);
  const auto before = byte_checksum(target);
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept_non_tensor("dict", {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "x"}});
    }
  });
  EXPECT_EQ(byte_checksum(target), before);
  const auto non_tensor = w.events_of("non_tensor", role::baseline);
  ASSERT_EQ(non_tensor.size(), 1u);
  EXPECT_NE(message_of(non_tensor[0]).find("value is not a tensor (got type=dict)"), std::string::npos);
  const auto skipped = w.events_of("recv_skipped", role::target);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].fields["error_kind"], "sender_absent");
}

TEST(grafter_failures, both_filters_matching_is_an_event_not_a_crash) {
  local_world w;
  w.config.t2b_filter = "name == 'x'";
  w.run([&](role, int, grafter& g) {
    at::Tensor t = at::full({2}, 3.0f);
    g.maybe_intercept(t, {{"name", "x"}, {"layer_id", 1}});
    EXPECT_EQ(values(t), (std::vector<double>{3, 3}));
    EXPECT_FALSE(g.has_group());
  });
  const auto conflicts = w.sink->events_of("filter_conflict");
  ASSERT_EQ(conflicts.size(), 2u);
  EXPECT_NE(message_of(conflicts[0]).find("matched BOTH b2t_filter and t2b_filter"), std::string::npos);
  EXPECT_NE(message_of(conflicts[0]).find("{'name': 'x', 'layer_id': 1}"), std::string::npos);
}

TEST(grafter_failures, desync_is_reported_on_every_rank_and_nothing_is_grafted) {
  local_world w;
  w.config.b2t_filter = "name in ('x', 'y')";
  at::Tensor target = at::full({3}, 7.0f);
  const auto before = byte_checksum(target);
  w.run([&](role side, int, grafter& g) {
    if (side == role::baseline) {
      g.maybe_intercept(at::ones({3}), {{"name", "x"}});
    } else {
      g.maybe_intercept(target, {{"name", "y"}});
    }
  });
  EXPECT_EQ(byte_checksum(target), before);
  EXPECT_EQ(w.events_of("desync", role::baseline).size(), 1u);
  const auto desync = w.events_of("desync", role::target);
  ASSERT_EQ(desync.size(), 1u);
  EXPECT_NE(message_of(desync[0]).find("'x'"), std::string::npos);
  EXPECT_NE(message_of(desync[0]).find("'y'"), std::string::npos);
}

TEST(grafter_failures, missing_peer_times_out_once_then_the_grafter_is_off) {
  local_world w;
  w.config.timeout_seconds = 0.3;
  w.run([&](role side, int, grafter& g) {
    if (side == role::target) return;  // the target never reaches the dump point
    at::Tensor t = at::ones({3});
    g.maybe_intercept(t, {{"name", "x"}});
    EXPECT_FALSE(g.active());
    g.maybe_intercept(t, {{"name", "x"}});  // returns at once: no second wait, no second event
  });
  const auto errors = w.events_of("group_error", role::baseline);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].fields["phase"], "exchange");
  EXPECT_NE(message_of(errors[0]).find("now disabled"), std::string::npos);
}

TEST(grafter_failures, group_creation_failure_disables_the_grafter) {
  auto sink = std::make_shared<memory_sink>();
  grafter g = lone_grafter(
      role::baseline,
      [](const graft_config&, const rank_layout&) -> std::unique_ptr<exchange> {
        throw timeout_error("rendezvous at 127.0.0.1:1 timed out");
      },
      sink);
  at::Tensor t = at::ones({2});
  g.maybe_intercept(t, {{"name", "x"}});
  g.maybe_intercept(t, {{"name", "x"}});
  EXPECT_FALSE(g.active());
  const auto errors = sink->events_of("group_error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].fields["phase"], "init");
  EXPECT_NE(message_of(errors[0]).find("timed out"), std::string::npos);
}

TEST(grafter_failures, invalid_config_is_a_config_error_at_construction) {
  graft_config c = local_world::default_config();
  c.side = role::baseline;
  c.baseline_world_size = c.target_world_size = 1;
  c.b2t_filter = "totally_undefined_helper(name)";
  EXPECT_THROW(grafter(c, {0, 1}), filter_error);
  c.b2t_filter = "name == 'x'";
  EXPECT_THROW(grafter(c, {0, 2}), config_error);  // WORLD_SIZE disagrees with baseline_world_size
}

}  // namespace
}  // namespace graft
