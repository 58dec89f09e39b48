#include <gtest/gtest.h>

#include <graft/harness/conformance.hpp>

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

}  // namespace
}  // namespace graft::harness
