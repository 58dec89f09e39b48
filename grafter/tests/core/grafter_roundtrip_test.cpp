// In-process versions of the reference's TestGrafterDistributed round trips,
// plus the filter-matching cases that need a grafter.
#include <graft/error.hpp>
#include <graft/grafter.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <graft_test/local_world.hpp>
#include <graft_test/tensor_checks.hpp>

namespace graft {
namespace {

using graft_test::local_world;
using graft_test::values;

TEST(grafter_roundtrip, b2t_copies_baseline_into_target) {
  local_world w;
  at::Tensor target_after;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::tensor({1.0f, 2.0f, 3.0f}) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) target_after = t;
    EXPECT_TRUE(g.has_group());
  });
  EXPECT_EQ(values(target_after), (std::vector<double>{1, 2, 3}));
  const auto grafted = w.events_of("recv_grafted", role::target);
  ASSERT_EQ(grafted.size(), 1u);
  EXPECT_EQ(grafted[0].fields["transform"], "identity_by_rank");
  EXPECT_EQ(grafted[0].fields["metrics"]["rel_diff"], 1.0);  // zeros vs [1,2,3]
  EXPECT_EQ(grafted[0].fields["metrics"]["max_abs"], 3.0);
  EXPECT_EQ(grafted[0].fields["sender_extras"], nlohmann::json::array({nullptr}));
  EXPECT_EQ(w.events_of("send", role::baseline).size(), 1u);
  EXPECT_EQ(w.sink->events_of("group_init").size(), 2u);
}

TEST(grafter_roundtrip, t2b_copies_target_into_baseline) {
  local_world w;
  w.config.b2t_filter.reset();
  w.config.t2b_filter = "name == 'x'";
  at::Tensor baseline_after;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::target ? at::tensor({4.0f, 5.0f, 6.0f}) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::baseline) baseline_after = t;
  });
  EXPECT_EQ(values(baseline_after), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(w.events_of("recv_grafted", role::baseline).size(), 1u);
  EXPECT_EQ(w.events_of("send", role::target).size(), 1u);
}

TEST(grafter_roundtrip, user_transform_doubles) {
  local_world w;
  w.custom_transform = transform{"double", [](const graft_transform_input& in) {
                                   return in.received_list[static_cast<std::size_t>(in.recv_rank)] * 2;
                                 }};
  at::Tensor target_after;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::tensor({1.0f, 2.0f, 3.0f}) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) target_after = t;
  });
  EXPECT_EQ(values(target_after), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(w.events_of("recv_grafted", role::target).at(0).fields["transform"], "double");
}

TEST(grafter_roundtrip, unmatched_name_is_silent_and_creates_no_group) {
  local_world w;
  w.config.t2b_filter = "name == 'y'";
  w.run([&](role, int, grafter& g) {
    at::Tensor t = at::full({3}, 7.0f);
    g.maybe_intercept(t, {{"name", "other"}});
    g.maybe_intercept_non_tensor("int", {{"name", "z"}});
    EXPECT_EQ(values(t), (std::vector<double>{7, 7, 7}));
    EXPECT_FALSE(g.has_group());
    EXPECT_EQ(g.matched_calls(), 0u);
  });
  EXPECT_TRUE(w.sink->events().empty());
}

TEST(grafter_roundtrip, disabled_returns_silently) {
  graft_config c;  // enable defaults to false
  auto sink = std::make_shared<memory_sink>();
  grafter_options options;
  options.sink = sink;
  grafter g(c, {0, 1}, options);
  at::Tensor t = at::zeros({2});
  g.maybe_intercept(t, {{"name", "x"}});
  EXPECT_FALSE(g.active());
  EXPECT_FALSE(g.has_group());
  EXPECT_TRUE(sink->events().empty());
}

TEST(grafter_roundtrip, group_init_carries_the_hosts_notes) {
  local_world w;
  w.group_init_notes = {{"backend_source", "DUMPER_GRAFTER_BACKEND"}, {"host", "a test"}};
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::ones({2}) : at::zeros({2});
    g.maybe_intercept(t, {{"name", "x"}});
  });
  for (role side : {role::baseline, role::target}) {
    const auto init = w.events_of("group_init", side).at(0);
    EXPECT_EQ(init.fields["backend_source"], "DUMPER_GRAFTER_BACKEND");
    EXPECT_EQ(init.fields["host"], "a test");
    EXPECT_EQ(init.fields["baseline_world_size"], 1);  // beside what the grafter says itself
  }
}

TEST(grafter_roundtrip, group_init_notes_that_are_no_object_are_refused) {
  grafter_options options;
  options.group_init_notes = "gloo";
  graft_config c = local_world::default_config();
  c.side = role::target;
  c.baseline_world_size = c.target_world_size = 1;
  EXPECT_THROW(grafter(c, {0, 1}, options), config_error);
}

TEST(grafter_roundtrip, extras_flow_to_the_transform_per_sender) {
  local_world w;
  w.custom_transform = transform{"uses_extras", [](const graft_transform_input& in) {
                                   return at::full_like(in.target, in.received_extras_list.at(0)["fill_value"].get<double>());
                                 }};
  at::Tensor target_after;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::tensor({1.0f, 2.0f, 3.0f}) : at::zeros({3});
    g.maybe_intercept(t, {{"name", "x"}}, side == role::baseline ? nlohmann::json{{"fill_value", 42.0}} : nullptr);
    if (side == role::target) target_after = t;
  });
  EXPECT_EQ(values(target_after), (std::vector<double>{42, 42, 42}));
  const auto grafted = w.events_of("recv_grafted", role::target).at(0);
  EXPECT_EQ(grafted.fields["sender_extras"][0]["fill_value"], 42.0);
  EXPECT_EQ(w.events_of("send", role::baseline).at(0).fields["extras"]["fill_value"], 42.0);
}

TEST(grafter_roundtrip, group_is_reused_across_calls) {
  local_world w;
  std::vector<std::vector<double>> seen;
  w.run([&](role side, int, grafter& g) {
    at::Tensor first = side == role::baseline ? at::tensor({1.0f, 2.0f, 3.0f}) : at::zeros({3});
    g.maybe_intercept(first, {{"name", "x"}});
    at::Tensor second = side == role::baseline ? at::tensor({4.0f, 5.0f, 6.0f}) : at::zeros({3});
    g.maybe_intercept(second, {{"name", "x"}});
    EXPECT_EQ(g.matched_calls(), 2u);
    if (side == role::target) seen = {values(first), values(second)};
  });
  EXPECT_EQ(seen, (std::vector<std::vector<double>>{{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(w.sink->events_of("group_init").size(), 2u);  // once per rank, not per call
}

TEST(grafter_roundtrip, dtype_cast_is_allowed_and_logged) {
  local_world w;
  at::Tensor target_after;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::tensor({1.5f, 2.25f, -3.0f}) : at::zeros({3}, at::kBFloat16);
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) target_after = t;
  });
  EXPECT_EQ(target_after.scalar_type(), at::kBFloat16);
  EXPECT_EQ(values(target_after), (std::vector<double>{1.5, 2.25, -3.0}));
  EXPECT_EQ(w.events_of("recv_grafted", role::target).at(0).fields["cast"], "float32 -> bfloat16");
}

// Complex values graft as they read (a lazy conjugate resolved), measured
// over their real and imaginary parts.
TEST(grafter_roundtrip, complex_tensors_graft_and_are_measured) {
  local_world w;
  const at::Tensor sent = at::complex(at::tensor({1.0f, 2.0f}), at::tensor({3.0f, -4.0f})).conj();
  at::Tensor target = at::zeros({2}, at::kComplexFloat);
  w.run([&](role side, int, grafter& g) { g.maybe_intercept(side == role::baseline ? sent : target, {{"name", "x"}}); });
  EXPECT_TRUE(at::equal(target, sent.resolve_conj()));
  EXPECT_EQ(values(at::view_as_real(target)), (std::vector<double>{1, -3, 2, 4}));
  const auto grafted = w.events_of("recv_grafted", role::target);
  ASSERT_EQ(grafted.size(), 1u) << (w.sink->events().empty() ? "" : w.sink->events().back().fields.dump());
  EXPECT_EQ(grafted[0].fields["metrics"]["numel"], 4);
  EXPECT_EQ(grafted[0].fields["metrics"]["max_abs"], 4.0);
  EXPECT_EQ(grafted[0].fields["metrics"]["max_abs_index"], 3);
}

TEST(grafter_roundtrip, extra_tags_take_part_in_filters) {
  local_world w;
  w.config.b2t_filter = "name == 'x' and layer_id < 3";
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::ones({2}) : at::zeros({2});
    g.maybe_intercept(t, {{"name", "x"}, {"layer_id", 5}});
    EXPECT_FALSE(g.has_group());
    g.maybe_intercept(t, {{"name", "x"}, {"layer_id", 1}});
    EXPECT_TRUE(g.has_group());
    if (side == role::target) {
      EXPECT_EQ(values(t), (std::vector<double>{1, 1}));
    }
  });
}

TEST(grafter_roundtrip, unknown_tag_reads_as_none) {
  local_world w;
  w.config.b2t_filter = "layer_id is None and name == 'x'";
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::ones({2}) : at::zeros({2});
    g.maybe_intercept(t, {{"name", "x"}});
    if (side == role::target) {
      EXPECT_EQ(values(t), (std::vector<double>{1, 1}));
    }
  });
}

TEST(grafter_events, jsonl_sink_writes_one_record_per_line) {
  local_world w;
  w.run([&](role side, int, grafter& g) {
    at::Tensor t = side == role::baseline ? at::ones({2}) : at::zeros({2});
    g.maybe_intercept(t, {{"name", "x"}});
  });
  const std::string path = ::testing::TempDir() + "/grafter_events_test.jsonl";
  std::remove(path.c_str());
  const auto written = w.sink->events();
  {
    jsonl_file_sink file(path);
    for (const auto& e : written) file.write(e);
  }
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> kinds;
  while (std::getline(in, line)) {
    const auto record = nlohmann::json::parse(line);
    EXPECT_EQ(record["schema_version"], kEventSchemaVersion);
    EXPECT_TRUE(record.contains("pid"));
    EXPECT_TRUE(record.contains("graft_rank"));
    kinds.push_back(record["kind"]);
  }
  std::sort(kinds.begin(), kinds.end());
  EXPECT_EQ(kinds, (std::vector<std::string>{"group_init", "group_init", "recv_grafted", "send"}));
}

TEST(grafter_events, unopenable_log_path_is_an_error_naming_it) {
  try {
    jsonl_file_sink sink("/nonexistent-dir/events.jsonl");
    FAIL() << "expected an error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/events.jsonl"), std::string::npos);
  }
}

}  // namespace
}  // namespace graft
