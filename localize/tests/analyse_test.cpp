// Events -> measurements -> verdicts, from hand-written events: the analysis
// alone, no processes.
#include <graft/localize/report.hpp>

#include <gtest/gtest.h>

namespace loc = graft::harness::localize;

namespace {

nlohmann::json event(const std::string& kind, const std::string& name, int layer, nlohmann::json rel_diff,
                     double max_abs = 0.5, int rank = 0, const std::string& dtype = "float32") {
  return {{"kind", kind},
          {"rank", rank},
          {"tags", {{"name", name}, {"layer_id", layer}}},
          {"before", {{"dtype", dtype}}},
          {"candidate", {{"dtype", "float32"}}},
          {"metrics", {{"rel_diff", rel_diff}, {"max_abs", max_abs}}}};
}

loc::pass_measurements pass(const std::string& label, std::vector<nlohmann::json> events) {
  loc::pass_outcome outcome;
  outcome.label = label;
  outcome.target_events = std::move(events);
  return loc::measure(outcome);
}

// A bug at layer 1's attention: accumulated error from there on, local error
// only at layer 1 (its attention, and what follows inside the layer).
loc::pass_measurements accumulated_pass() {
  return pass("accumulated", {event("compare", "layer_input", 0, 0.0), event("compare", "attn_output", 0, 0.0),
                              event("compare", "layer_input", 1, 0.0), event("compare", "attn_output", 1, 3e-3),
                              event("compare", "layer_input", 2, 2e-3), event("compare", "attn_output", 2, 4e-3)});
}

loc::pass_measurements local_pass() {
  return pass("local", {event("recv_grafted", "layer_input", 0, 0.0), event("compare", "attn_output", 0, 0.0),
                        event("recv_grafted", "layer_input", 1, 0.0), event("compare", "attn_output", 1, 3e-3),
                        event("recv_grafted", "layer_input", 2, 2e-3), event("compare", "attn_output", 2, 0.0)});
}

}  // namespace

TEST(Measure, KeepsExecutionOrderLabelsAndTheWorstRank) {
  const loc::pass_measurements m =
      pass("p", {event("compare", "attn_output", 0, 1e-9, 0.1, 0), event("compare", "attn_output", 0, 1e-5, 0.2, 1),
                 event("send", "x", 0, 0.0), event("compare", "logits", 4, "NaN"),
                 event("compare", "attn_output", 0, 1e-7, 0.1, 0)});
  ASSERT_EQ(m.points.size(), 3u);
  EXPECT_EQ(m.points[0].label, "attn_output[0]");
  EXPECT_DOUBLE_EQ(m.points[0].value.rel_diff, 1e-5);  // rank 1 is worse
  EXPECT_DOUBLE_EQ(m.points[0].value.max_abs, 0.2);
  EXPECT_EQ(m.points[1].label, "logits[4]");
  EXPECT_TRUE(std::isnan(m.points[1].value.rel_diff));
  EXPECT_EQ(m.points[2].label, "attn_output[0]#1");  // the second call with the same tags
  EXPECT_TRUE(m.problems.empty());
}

TEST(Measure, UnexpectedEventsAreProblems) {
  nlohmann::json skipped = event("recv_skipped", "attn_output", 0, 0.0);
  skipped["message"] = "shape mismatch";
  const loc::pass_measurements m = pass("local", {skipped, {{"kind", "desync"}, {"message", "ranks differ"}}});
  EXPECT_TRUE(m.points.empty());
  ASSERT_EQ(m.problems.size(), 2u);
  EXPECT_NE(m.problems[0].find("recv_skipped: shape mismatch"), std::string::npos) << m.problems[0];
}

TEST(Analyse, CulpritIsTheFirstLocalBreakAndAccumulatedInheritsDownstream) {
  const loc::localize_report r = loc::analyse(accumulated_pass(), local_pass(), nullptr, nullptr, {});
  ASSERT_TRUE(r.culprit.has_value());
  EXPECT_EQ(r.points[*r.culprit].label, "attn_output[1]");
  ASSERT_TRUE(r.accumulated_first.has_value());
  EXPECT_EQ(*r.accumulated_first, *r.culprit);
  EXPECT_EQ(r.points[4].verdict, "diverges");   // layer 2's input: layer 1's output, locally wrong
  EXPECT_EQ(r.points[5].verdict, "inherited");  // layer 2's attention is fine on the baseline's input
  EXPECT_EQ(r.points[0].verdict, "ok");
  EXPECT_FALSE(r.calibrated);
}

TEST(Analyse, CalibrationRaisesThresholdsPerPointAndPass) {
  // Noise that grows along the accumulated pass but stays flat locally.
  const loc::pass_measurements cal_acc =
      pass("ca", {event("compare", "layer_input", 0, 0.0), event("compare", "attn_output", 0, 1e-5),
                  event("compare", "layer_input", 1, 1e-5), event("compare", "attn_output", 1, 1e-3),
                  event("compare", "layer_input", 2, 1e-3), event("compare", "attn_output", 2, 1e-3)});
  const loc::pass_measurements cal_local =
      pass("cl", {event("recv_grafted", "layer_input", 0, 0.0), event("compare", "attn_output", 0, 1e-5),
                  event("recv_grafted", "layer_input", 1, 1e-5), event("compare", "attn_output", 1, 1e-5),
                  event("recv_grafted", "layer_input", 2, 1e-5), event("compare", "attn_output", 2, 1e-5)});
  const loc::localize_report r = loc::analyse(accumulated_pass(), local_pass(), &cal_acc, &cal_local, {});
  EXPECT_TRUE(r.calibrated);
  ASSERT_TRUE(r.culprit.has_value());
  EXPECT_EQ(r.points[*r.culprit].label, "attn_output[1]");  // 3e-3 > 10 x 1e-5 locally
  EXPECT_FALSE(r.accumulated_first.has_value());            // 3e-3 < 10 x 1e-3 accumulated
  EXPECT_DOUBLE_EQ(r.points[3].local_threshold->rel_diff, 1e-4);
  EXPECT_DOUBLE_EQ(*r.points[3].floor_accumulated, 1e-3);
}

TEST(Analyse, NoBreakMeansNoDivergence) {
  const loc::pass_measurements quiet = pass("q", {event("compare", "attn_output", 0, 1e-9)});
  const loc::localize_report r = loc::analyse(quiet, quiet, nullptr, nullptr, {});
  EXPECT_FALSE(r.diverges());
  EXPECT_FALSE(r.accumulated_first.has_value());
  EXPECT_EQ(r.points.at(0).verdict, "ok");
}

// A pass that failed measured nothing; the headline must not say all is well.
TEST(Report, ARunWithProblemsClaimsNoDivergence) {
  const loc::pass_measurements quiet = pass("q", {event("compare", "attn_output", 0, 1e-9)});
  loc::localize_report r = loc::analyse(quiet, quiet, nullptr, nullptr, {});
  EXPECT_NE(loc::format_summary(r).find("no divergence"), std::string::npos);
  r.problems.push_back("target rank 0 exited with status 2");
  const std::string summary = loc::format_summary(r);
  EXPECT_EQ(summary.find("no divergence"), std::string::npos) << summary;
  EXPECT_NE(summary.find("no verdict: the run had problems"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("would flag nothing"), std::string::npos) << summary;  // nor for the accumulated pass
}

TEST(Report, JsonCarriesSchemaVersionAndNonFiniteAsStrings) {
  const loc::pass_measurements bad = pass("b", {event("compare", "logits", 2, "NaN")});
  loc::localize_report r = loc::analyse(bad, bad, nullptr, nullptr, {});
  r.run_name = "nan-run";
  const nlohmann::json j = loc::to_json(r);
  EXPECT_EQ(j["schema_version"], loc::kReportSchemaVersion);
  EXPECT_EQ(j["culprit"]["label"], "logits[2]");  // NaN breaks every tolerance
  EXPECT_EQ(j["points"][0]["local"]["rel_diff"], "NaN");
  EXPECT_EQ(j["diverges"], true);
}

TEST(Report, TableSummaryAndPlotNameTheCulprit) {
  loc::localize_report r = loc::analyse(accumulated_pass(), local_pass(), nullptr, nullptr, {});
  r.run_name = "demo";
  const std::string table = loc::format_table(r);
  EXPECT_NE(table.find("attn_output  1"), std::string::npos) << table;
  EXPECT_NE(table.find("diverges  <- culprit"), std::string::npos) << table;
  const std::string summary = loc::format_summary(r);
  EXPECT_NE(summary.find("culprit: attn_output (layer 1): local rel_diff 0.003 > 1e-06 (default float32)"),
            std::string::npos)
      << summary;
  const std::string svg = loc::render_svg(r);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("culprit: attn_output[1]"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  EXPECT_EQ(svg, loc::render_svg(r));  // deterministic
}

// A deep model's plot widens so that each point keeps its room, and every
// marker names its point and value on hover.
TEST(Report, PlotWidensWithThePointsAndTitlesEachMarker) {
  std::vector<nlohmann::json> accumulated, local;
  for (int layer = 0; layer < 200; ++layer) {
    accumulated.push_back(event("compare", "attn_output", layer, 1e-8));
    local.push_back(event("compare", "attn_output", layer, 1e-9));
  }
  loc::localize_report r = loc::analyse(pass("a", accumulated), pass("l", local), nullptr, nullptr, {});
  r.run_name = "deep <model>";
  const std::string svg = loc::render_svg(r);
  const std::string width = svg.substr(svg.find("width=\"") + 7, 10);
  EXPECT_GE(std::stod(width), 200 * 16.0) << width;
  std::size_t titles = 0;
  for (std::size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) ++titles;
  EXPECT_EQ(titles, 400u);  // one per marker, both series
  EXPECT_NE(svg.find("<title>attn_output[199]: local rel_diff 1e-09 (tolerance 1e-06), verdict ok</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("deep &lt;model&gt;"), std::string::npos);
}
