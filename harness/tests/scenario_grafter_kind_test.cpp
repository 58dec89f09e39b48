#include <gtest/gtest.h>

#include <graft/harness/grafter_kind.hpp>
#include <graft/harness/worker_protocol.hpp>

namespace graft::harness {
namespace {

scenario make(const nlohmann::json& grafter, const std::string& device = "cpu") {
  nlohmann::json doc = {{"schema_version", 1},
                        {"device", device},
                        {"name", "s"},
                        {"world", {{"baseline", 1}, {"target", 2}}},
                        {"grafter", grafter},
                        {"steps",
                         {{{"name", "x"},
                           {"tags", {{"layer_id", 3}}},
                           {"baseline", {{"tensor", {{"dtype", "bfloat16"}, {"shape", {2}}, {"arange", {{"start", 1}}}}},
                                         {"extras", {{"dim", 0}}}}},
                           {"target", {{"tensor", {{"values", {0, 0}}}}}}},
                          {{"name", "y"},
                           {"baseline", {{"tensor", {{"from", "x"}, {"scale", 2}}}}},
                           {"target", {{"non_tensor", "dict"}}}}}}};
  return parse_scenario(doc, "s.json");
}

TEST(GrafterKind, NamesReadBackAndUnknownOnesAreRefused) {
  for (grafter_kind kind : all_grafter_kinds()) EXPECT_EQ(parse_grafter_kind(to_string(kind)), kind);
  EXPECT_FALSE(parse_grafter_kind("rust"));
  EXPECT_TRUE(emits_graft_events(grafter_kind::python));
  EXPECT_FALSE(emits_graft_events(grafter_kind::sglang));
}

TEST(GrafterKind, SglangTakesNoTransformOfGrafts) {
  const scenario plain = make({{"b2t_filter", "name == 'x'"}, {"measure", "off"}, {"timeout", 5}});
  for (grafter_kind kind : all_grafter_kinds()) EXPECT_FALSE(not_applicable_reason(plain, kind)) << to_string(kind);

  const auto plugin = not_applicable_reason(make({{"b2t_filter", "name == 'x'"}, {"transform_path", "double:double_it"}}),
                                            grafter_kind::sglang);
  ASSERT_TRUE(plugin);
  EXPECT_NE(plugin->find("a C++ plugin transform (double:double_it)"), std::string::npos) << *plugin;
  const auto builtin = not_applicable_reason(
      make({{"b2t_filter", "name == 'x'"}, {"transform_path", "builtin:reshard"}}), grafter_kind::sglang);
  ASSERT_TRUE(builtin);
  EXPECT_NE(builtin->find("graft's built-in"), std::string::npos) << *builtin;
  // graft's Python package takes graft's transforms.
  EXPECT_FALSE(not_applicable_reason(make({{"b2t_filter", "name == 'x'"}, {"transform_path", "builtin:reshard"}}),
                                     grafter_kind::python));
}

TEST(GrafterKind, ThePythonWorkersTakeNoCudaRank) {
  const scenario cuda = make({{"b2t_filter", "name == 'x'"}}, "cuda");
  EXPECT_FALSE(not_applicable_reason(cuda, grafter_kind::cpp));
  for (grafter_kind kind : {grafter_kind::python, grafter_kind::sglang}) {
    const auto reason = not_applicable_reason(cuda, kind);
    ASSERT_TRUE(reason) << to_string(kind);
    EXPECT_NE(reason->find("CPU tensors only"), std::string::npos) << *reason;
  }
}

TEST(RankPlan, HoldsTheRanksWholePartResolved) {
  const scenario s = make({{"b2t_filter", "name == 'x'"}, {"transform_path", "double:double_it"}});
  const nlohmann::json plan = rank_plan(s, {"/runs/s", graft::role::target, 1}, 4242, 4343, "/plugins");
  EXPECT_EQ(plan["role"], "target");
  EXPECT_EQ(plan["local_rank"], 1);
  EXPECT_EQ(plan["graft_rank"], 2);
  EXPECT_EQ(plan["world"], (nlohmann::json{{"baseline", 1}, {"target", 2}}));
  EXPECT_EQ(plan["side_port"], 4343);
  EXPECT_EQ(plan["device"], "cpu");
  // The settings graft_worker plays with: enabled, the runner's port, the plugin's short name resolved.
  EXPECT_EQ(plan["grafter"], worker_grafter_settings(s, graft::role::target, 4242, "/plugins"));
  EXPECT_EQ(plan["grafter"]["master_port"], 4242);
  EXPECT_EQ(plan["grafter"]["transform_path"], "/plugins/libgraft_double_transform.so:double_it");
  EXPECT_EQ(plan["grafter"]["timeout"], kDefaultWorkerGraftTimeout);
  ASSERT_EQ(plan["steps"].size(), 2u);
  EXPECT_EQ(plan["steps"][0]["name"], "x");
  EXPECT_EQ(plan["steps"][0]["tags"], (nlohmann::json{{"layer_id", 3}}));
  EXPECT_EQ(plan["steps"][0]["tensor"]["source"], "values");
  EXPECT_EQ(plan["steps"][1]["tensor"], nullptr);
  EXPECT_EQ(plan["steps"][1]["non_tensor"], "dict");

  const nlohmann::json baseline = rank_plan(s, {"/runs/s", graft::role::baseline, 0}, 4242, 4141, "/plugins");
  const nlohmann::json& arange = baseline["steps"][0]["tensor"];
  EXPECT_EQ(arange["source"], "arange");
  EXPECT_EQ(arange["dtype"], "bfloat16");
  EXPECT_EQ(arange["start"], 1.0);
  EXPECT_EQ(baseline["steps"][0]["extras"], (nlohmann::json{{"dim", 0}}));
  const nlohmann::json& from = baseline["steps"][1]["tensor"];
  EXPECT_EQ(from["source"], "from");
  EXPECT_EQ(from["from"], "x");
  EXPECT_EQ(from["scale"], 2.0);
  EXPECT_EQ(from["dtype"], nullptr);
}

}  // namespace
}  // namespace graft::harness
