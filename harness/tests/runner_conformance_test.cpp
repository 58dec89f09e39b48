#include <gtest/gtest.h>

#include <graft/harness/conformance.hpp>
#include <graft/harness/expectations.hpp>

namespace graft::harness {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

scenario_result result(const std::string& name, scenario_result::status outcome,
                       std::vector<std::string> problems = {}, const std::string& note = "") {
  return {name, outcome, std::move(problems), note, 1.5};
}

std::vector<conformance_column> columns(scenario_result::status python_desync) {
  using status = scenario_result::status;
  return {{grafter_kind::cpp, {result("desync", status::pass), result("double_1x1", status::pass)}},
          {grafter_kind::python,
           {result("desync", python_desync, {"steps[0] 'y' target rank 0: expected the tensor unchanged"}),
            result("double_1x1", status::pass, {}, "new snapshot, needs review")}},
          {grafter_kind::sglang,
           {result("desync", status::hang, {"timed out after 30 s\nkilled baseline-0"}),
            result("double_1x1", status::not_applicable, {"a C++ plugin transform | (double:double_it)"})}}};
}

TEST(ConformanceTable, OneRowPerScenarioOneCellPerGrafter) {
  const std::string table = conformance_markdown({"desync", "double_1x1"}, columns(scenario_result::status::fail));
  EXPECT_TRUE(has(table, "| scenario | graft C++ | graft Python | sglang |\n|---|---|---|---|\n")) << table;
  EXPECT_TRUE(has(table, "| desync | pass | FAIL: steps[0] 'y' target rank 0: expected the tensor unchanged | HANG: "
                         "timed out after 30 s |\n"))
      << table;
  // A pipe in a reason would split the cell; a pass keeps its note.
  EXPECT_TRUE(has(table, "| double_1x1 | pass | pass (new snapshot, needs review) | N/A: a C++ plugin transform / "
                         "(double:double_it) |\n"))
      << table;
  // Every cell that is no pass has its whole reasons below the table.
  EXPECT_TRUE(has(table, "### desync, sglang: HANG\n\n- timed out after 30 s / killed baseline-0\n")) << table;
  EXPECT_TRUE(has(table, "### desync, graft Python: FAIL\n")) << table;
  EXPECT_FALSE(has(table, "### double_1x1")) << table;
}

TEST(ConformanceTable, JsonHoldsEveryCellWhole) {
  const nlohmann::json doc = conformance_json({"desync", "double_1x1"}, columns(scenario_result::status::fail));
  EXPECT_EQ(doc["grafters"], (nlohmann::json{"cpp", "python", "sglang"}));
  ASSERT_EQ(doc["scenarios"].size(), 2u);
  EXPECT_EQ(doc["scenarios"][0]["cells"]["sglang"]["result"], "hang");
  EXPECT_EQ(doc["scenarios"][0]["cells"]["sglang"]["problems"][0], "timed out after 30 s\nkilled baseline-0");
  EXPECT_EQ(doc["scenarios"][1]["cells"]["sglang"]["result"], "not_applicable");
  EXPECT_EQ(doc["scenarios"][1]["cells"]["cpp"]["result"], "pass");
}

TEST(ConformanceTable, OnlyGraftsOwnCellsFailTheCommand) {
  EXPECT_EQ(conformance_exit_code(columns(scenario_result::status::pass)), 0);  // sglang's hang is measured
  EXPECT_EQ(conformance_exit_code(columns(scenario_result::status::fail)), 1);
  EXPECT_EQ(conformance_exit_code(columns(scenario_result::status::hang)), 1);
  EXPECT_EQ(conformance_exit_code(columns(scenario_result::status::error)), 1);
}

scenario two_steps() {
  nlohmann::json doc = {
      {"schema_version", 1},
      {"name", "s"},
      {"world", {{"baseline", 1}, {"target", 1}}},
      {"grafter", {{"b2t_filter", "name == 'x'"}}},
      {"steps",
       {{{"name", "x"},
         {"baseline", {{"tensor", {{"values", {1, 2}}}}, {"expect", {{"outcome", "sent"}}}}},
         {"target", {{"tensor", {{"values", {0, 0}}}}, {"expect", {{"outcome", "grafted"}, {"values", {1, 2}}}}}}},
        {{"name", "z"},
         {"baseline", {{"tensor", {{"values", {3}}}}, {"expect", {{"outcome", "none"}}}}},
         {"target", {{"tensor", {{"values", {4}}}}, {"expect", {{"outcome", "none"}, {"unchanged", true}}}}}}}}};
  return parse_scenario(doc, "s.json");
}

nlohmann::json tv(const nlohmann::json& values, const std::string& bytes) {
  return {{"dtype", "float32"}, {"shape", {values.size()}}, {"values", values}, {"element_size", 4},
          {"bytes", bytes}};
}

nlohmann::json step(const nlohmann::json& initial, const nlohmann::json& final_value) {
  return {{"ran", true}, {"events", nlohmann::json::array()}, {"initial", initial}, {"final", final_value}};
}

nlohmann::json rank_result(const nlohmann::json& steps) {
  return {{"schema_version", 1}, {"error", nullptr}, {"setup", {{"events", nlohmann::json::array()}}},
          {"steps", steps}};
}

TEST(CheckExpectationsWithoutEvents, ValuesAndBytesAreStillChecked) {
  const scenario s = two_steps();
  const nlohmann::json one_two = tv({1, 2}, "0000803f00000040");
  worker_results results{
      {{graft::role::baseline, 0},
       rank_result({step(one_two, one_two), step(tv({3}, "00004040"), tv({3}, "00004040"))})},
      {{graft::role::target, 0},
       rank_result({step(tv({0, 0}, "0000000000000000"), one_two), step(tv({4}, "00008040"), tv({4}, "00008040"))})}};
  // No events at all: with events the outcomes fail, without them everything holds.
  EXPECT_FALSE(check_expectations(s, results).empty());
  EXPECT_TRUE(check_expectations(s, results, false).empty());

  results[{graft::role::target, 0}]["steps"][1]["final"] = tv({1}, "0000803f");
  const auto failures = check_expectations(s, results, false);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_TRUE(has(failures[0], "steps[1] 'z' target rank 0: expected the tensor unchanged")) << failures[0];
}

TEST(CheckExpectationsWithoutEvents, WhatTheGrafterRaisedEndsTheRank) {
  const scenario s = two_steps();
  const nlohmann::json one_two = tv({1, 2}, "0000803f00000040");
  nlohmann::json raised = step(tv({0, 0}, "0000000000000000"), nullptr);
  raised["raised"] = "RuntimeError: matched BOTH grafter_b2t_filter and grafter_t2b_filter";
  worker_results results{
      {{graft::role::baseline, 0},
       rank_result({step(one_two, one_two), step(tv({3}, "00004040"), tv({3}, "00004040"))})},
      {{graft::role::target, 0}, rank_result(nlohmann::json::array({raised}))}};
  const auto failures = check_expectations(s, results, false);
  ASSERT_EQ(failures.size(), 1u);  // not also "no result" for the step never called
  EXPECT_EQ(failures[0],
            "steps[0] 'x' target rank 0: the grafter raised into the host program: RuntimeError: matched BOTH "
            "grafter_b2t_filter and grafter_t2b_filter");
}

}  // namespace
}  // namespace graft::harness
