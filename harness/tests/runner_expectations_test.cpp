#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <graft/harness/expectations.hpp>

namespace graft::harness {
namespace {

nlohmann::json one_step_document(const nlohmann::json& target_expect) {
  return {
      {"schema_version", 1},
      {"name", "s"},
      {"world", {{"baseline", 1}, {"target", 1}}},
      {"grafter", {{"b2t_filter", "name == 'x'"}}},
      {"steps",
       {{{"name", "x"},
         {"baseline", {{"tensor", {{"values", {1, 2}}}}, {"expect", {{"outcome", "sent"}}}}},
         {"target", {{"tensor", {{"values", {0, 0}}}}, {"expect", target_expect}}}}}}};
}

scenario one_step_scenario(const nlohmann::json& target_expect) {
  return parse_scenario(one_step_document(target_expect), "s.json");
}

nlohmann::json tensor(const nlohmann::json& values, const std::string& dtype = "float32") {
  return {{"dtype", dtype}, {"shape", {values.size()}}, {"values", values}};
}

nlohmann::json result(const nlohmann::json& events, const nlohmann::json& initial, const nlohmann::json& final_value) {
  return {{"schema_version", 1},
          {"error", nullptr},
          {"setup", {{"events", nlohmann::json::array()}}},
          {"steps", {{{"ran", true}, {"events", events}, {"initial", initial}, {"final", final_value}}}}};
}

worker_results results_with_target(const nlohmann::json& target) {
  return {{{graft::role::baseline, 0}, result({{{"kind", "send"}}}, tensor({1, 2}), tensor({1, 2}))},
          {{graft::role::target, 0}, target}};
}

TEST(OutcomeOf, TheLastEventDecides) {
  EXPECT_EQ(outcome_of(nlohmann::json::array()), "none");
  EXPECT_EQ(outcome_of({{{"kind", "send"}}}), "sent");
  EXPECT_EQ(outcome_of({{{"kind", "recv_grafted"}}}), "grafted");
  EXPECT_EQ(outcome_of({{{"kind", "non_tensor"}}, {{"kind", "group_error"}}}), "group_error");
  // The group is created inside the first matched call; that is not its outcome.
  EXPECT_EQ(outcome_of({{{"kind", "non_tensor"}}, {{"kind", "group_init"}}}), "non_tensor");
  EXPECT_EQ(outcome_of({{{"kind", "group_init"}}}), "none");
}

TEST(CheckExpectations, ARelationToTheBaselineHoldsOrSaysWhy) {
  const scenario s = one_step_scenario({{"outcome", "grafted"}, {"equals", {{"of", "baseline"}, {"scale", 2}}}});
  const auto grafted = result({{{"kind", "recv_grafted"}}}, tensor({0, 0}), tensor({2, 4}));
  EXPECT_TRUE(check_expectations(s, results_with_target(grafted)).empty());

  const auto wrong = result({{{"kind", "recv_grafted"}}}, tensor({0, 0}), tensor({2, 5}));
  const auto failures = check_expectations(s, results_with_target(wrong));
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("steps[0] 'x' target rank 0: expected 2.0 x baseline rank 0"), std::string::npos)
      << failures[0];
  EXPECT_NE(failures[0].find("values differ at [1]: expected 4.0, got 5.0"), std::string::npos) << failures[0];
}

TEST(CheckExpectations, SkippedWithAnErrorKindAndMessageAndUnchangedTarget) {
  const scenario s = one_step_scenario({{"outcome", "skipped"},
                                        {"error_kind", "shape_mismatch"},
                                        {"message_contains", "transform"},
                                        {"unchanged", true}});
  const nlohmann::json skipped = {{"kind", "recv_skipped"},
                                  {"error_kind", "shape_mismatch"},
                                  {"message", "pass a transform (target tensor unchanged)"}};
  const auto ok = check_expectations(s, results_with_target(result(nlohmann::json::array({skipped}), tensor({0, 0}), tensor({0, 0}))));
  EXPECT_TRUE(ok.empty()) << ok.front();

  const auto changed = check_expectations(s, results_with_target(result(nlohmann::json::array({skipped}), tensor({0, 0}), tensor({0, 1}))));
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_NE(changed[0].find("expected the tensor unchanged"), std::string::npos) << changed[0];

  const nlohmann::json grafted = {{"kind", "recv_grafted"}};
  const auto wrong = check_expectations(s, results_with_target(result(nlohmann::json::array({grafted}), tensor({0, 0}), tensor({0, 0}))));
  ASSERT_EQ(wrong.size(), 3u);
  EXPECT_NE(wrong[0].find("expected outcome skipped, got grafted"), std::string::npos) << wrong[0];
  EXPECT_NE(wrong[1].find("expected error_kind shape_mismatch, got (none)"), std::string::npos) << wrong[1];
  EXPECT_NE(wrong[2].find("expected the message to contain \"transform\""), std::string::npos) << wrong[2];
}

TEST(CheckExpectations, ExactValuesDtypeAndNan) {
  const scenario s = one_step_scenario({{"values", {1, "NaN"}}, {"dtype", "bfloat16"}});
  const auto ok = result({}, tensor({0, 0}, "bfloat16"), tensor({1, "NaN"}, "bfloat16"));
  EXPECT_TRUE(check_expectations(s, results_with_target(ok)).empty());
  const auto bad = result({}, tensor({0, 0}), tensor({1, 2}));
  const auto failures = check_expectations(s, results_with_target(bad));
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_NE(failures[0].find("expected dtype bfloat16, got float32"), std::string::npos) << failures[0];
  EXPECT_NE(failures[1].find("values differ at [1]: expected NaN, got 2.0"), std::string::npos) << failures[1];
}

// A float32 tensor as the worker reports it: its values and its bytes.
nlohmann::json float32_tensor(const std::vector<float>& values) {
  nlohmann::json out = tensor(nlohmann::json::array());
  std::string hex;
  for (const float v : values) {
    out["values"].push_back(std::signbit(v) && v == 0 ? nlohmann::json("-0.0") : nlohmann::json(double(v)));
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (const unsigned char b : bytes) {
      hex += "0123456789abcdef"[b >> 4];
      hex += "0123456789abcdef"[b & 0xF];
    }
  }
  out["shape"] = {values.size()};
  out["bytes"] = hex;
  out["element_size"] = sizeof(float);
  return out;
}

// "unchanged" is the bytes: a change far below any printed precision, a
// zero's sign and a NaN's payload all count.
TEST(CheckExpectations, UnchangedComparesBytes) {
  const scenario s = one_step_scenario({{"outcome", "skipped"}, {"unchanged", true}});
  const nlohmann::json skipped = nlohmann::json::array({{{"kind", "recv_skipped"}}});
  const float quiet_nan = std::nanf("");
  const float other_nan = std::nanf("7");
  const std::vector<std::pair<std::vector<float>, std::vector<float>>> changes = {
      {{1.0f, 0.0f}, {1.0f, -0.0f}},
      {{1.0f, 0.25f}, {std::nextafter(1.0f, 2.0f), 0.25f}},
      {{quiet_nan, 0.0f}, {other_nan, 0.0f}}};
  for (const auto& [before, after] : changes) {
    const auto failures =
        check_expectations(s, results_with_target(result(skipped, float32_tensor(before), float32_tensor(after))));
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("expected the tensor unchanged; element ["), std::string::npos) << failures[0];
  }
  const auto same = check_expectations(
      s, results_with_target(result(skipped, float32_tensor({quiet_nan, -0.0f}), float32_tensor({quiet_nan, -0.0f}))));
  EXPECT_TRUE(same.empty()) << same.front();
}

// "exact": the values' bits, so -0.0 is not 0.0 (and NaN is NaN).
TEST(CheckExpectations, ExactValuesCompareBits) {
  const scenario s = one_step_scenario({{"values", {"-0.0", "NaN", -0.00099945068359375}}, {"exact", true}});
  const auto ok = result({}, tensor({0, 0, 0}), tensor({"-0.0", "NaN", -0.00099945068359375}));
  EXPECT_TRUE(check_expectations(s, results_with_target(ok)).empty());
  const auto zero = result({}, tensor({0, 0, 0}), tensor({0.0, "NaN", -0.00099945068359375}));
  const auto failures = check_expectations(s, results_with_target(zero));
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("values differ at [0]: expected -0.0, got 0.0"), std::string::npos) << failures[0];
  // Without "exact", the default tolerance: 0.0 is near enough to -0.0.
  const scenario loose = one_step_scenario({{"values", {"-0.0", "NaN", -0.00099945068359375}}});
  EXPECT_TRUE(check_expectations(loose, results_with_target(zero)).empty());
}

TEST(CheckExpectations, MissingOrFailedWorkersAreReported) {
  const scenario s = one_step_scenario({{"outcome", "grafted"}});
  worker_results results = results_with_target(result({}, tensor({0, 0}), tensor({0, 0})));
  results.erase({graft::role::target, 0});
  EXPECT_EQ(check_expectations(s, results), std::vector<std::string>{"target rank 0: the worker reported no result"});
  results[{graft::role::target, 0}] = {{"error", "grafter config: bad filter"}};
  EXPECT_EQ(check_expectations(s, results),
            std::vector<std::string>{"target rank 0: the worker failed: grafter config: bad filter"});
}

// A grafter that did not start explains every step after it: without
// expect_setup the rejection itself is a failure, named first.
TEST(CheckExpectations, AnUndeclaredSetupEventFailsFirstWithItsMessage) {
  const scenario s = one_step_scenario({{"outcome", "grafted"}});
  nlohmann::json target = result(nlohmann::json::array(), tensor({0, 0}), tensor({0, 0}));
  target["setup"]["events"] = {{{"kind", "config_error"}, {"message", "b2t_filter: unexpected end of expression"}}};
  const auto failures = check_expectations(s, results_with_target(target));
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0],
            "setup target rank 0: unexpected config_error; fix the scenario's grafter settings, or declare it with "
            "expect_setup: b2t_filter: unexpected end of expression");
  EXPECT_NE(failures[1].find("steps[0] 'x' target rank 0: expected outcome grafted, got none"), std::string::npos)
      << failures[1];

  target["steps"][0]["events"] = {{{"kind", "recv_grafted"}}};
  target["setup"]["events"] = nlohmann::json::array();
  EXPECT_TRUE(check_expectations(s, results_with_target(target)).empty());
}

// A grafter that emits no events (sglang's): only what the values and
// bytes show is checked.
TEST(CheckExpectationsWithoutEvents, ValuesAndBytesAreStillChecked) {
  const nlohmann::json no_events = nlohmann::json::array();
  const scenario grafted = one_step_scenario({{"outcome", "grafted"}, {"values", {1, 2}}});
  const auto right = results_with_target(result(no_events, tensor({0, 0}), tensor({1, 2})));
  EXPECT_FALSE(check_expectations(grafted, right).empty()) << "with events, the outcome is missing";
  EXPECT_TRUE(check_expectations(grafted, right, false).empty());
  const auto wrong = check_expectations(grafted, results_with_target(result(no_events, tensor({0, 0}), tensor({1, 3}))),
                                        false);
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_NE(wrong[0].find("values differ at [1]: expected 2.0, got 3.0"), std::string::npos) << wrong[0];

  const scenario unchanged = one_step_scenario({{"outcome", "skipped"}, {"unchanged", true}});
  const auto same = results_with_target(result(no_events, float32_tensor({4.0f}), float32_tensor({4.0f})));
  EXPECT_TRUE(check_expectations(unchanged, same, false).empty());
  const auto changed = check_expectations(
      unchanged, results_with_target(result(no_events, float32_tensor({4.0f}), float32_tensor({1.0f}))), false);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_NE(changed[0].find("steps[0] 'x' target rank 0: expected the tensor unchanged"), std::string::npos)
      << changed[0];
}

TEST(CheckExpectationsWithoutEvents, WhatTheGrafterRaisedEndsTheRank) {
  // A second step the target never reaches once the first raised.
  nlohmann::json doc = one_step_document({{"outcome", "grafted"}, {"values", {1, 2}}});
  doc["steps"].push_back({{"name", "z"},
                          {"baseline", {{"tensor", {{"values", {3}}}}, {"expect", {{"outcome", "none"}}}}},
                          {"target", {{"tensor", {{"values", {4}}}}, {"expect", {{"unchanged", true}}}}}});
  const scenario s = parse_scenario(doc, "s.json");
  nlohmann::json baseline = result(nlohmann::json::array(), tensor({1, 2}), tensor({1, 2}));
  baseline["steps"].push_back(baseline["steps"][0]);
  nlohmann::json target = result(nlohmann::json::array(), tensor({0, 0}), nullptr);
  target["steps"][0]["raised"] = "RuntimeError: matched BOTH grafter_b2t_filter and grafter_t2b_filter";
  const worker_results results{{{graft::role::baseline, 0}, baseline}, {{graft::role::target, 0}, target}};
  const auto failures = check_expectations(s, results, false);
  ASSERT_EQ(failures.size(), 1u);  // not also "no result" for the step never called
  EXPECT_EQ(failures[0],
            "steps[0] 'x' target rank 0: the grafter raised into the host program: RuntimeError: matched BOTH "
            "grafter_b2t_filter and grafter_t2b_filter");
}

}  // namespace
}  // namespace graft::harness
