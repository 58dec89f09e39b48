// The reports folder's page from a folder as the tools leave it
// (tests/data/report_page: a graft run with a failed and an errored
// scenario, a bench report, a localize run), and from folders that lack or
// break each part.
#include <graft/harness/report_page.hpp>

#include <gtest/gtest.h>

#include <graft/error.hpp>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

using testing::read_file;
using testing::temp_dir;

bool has(const std::string& page, const std::string& text) { return page.find(text) != std::string::npos; }

std::size_t count(const std::string& page, const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = page.find(text); at != std::string::npos; at = page.find(text, at + 1)) ++n;
  return n;
}

class report_page : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(GRAFT_REPORT_PAGE_FIXTURES, reports_, std::filesystem::copy_options::recursive);
  }
  temp_dir dir_;
  std::filesystem::path reports_ = dir_ / "reports";
};

TEST_F(report_page, ShowsEverySectionOfAFullFolder) {
  const std::string page = render_report_page(reports_);
  for (const char* id : {"run", "diffs", "conformance", "bench", "localize"}) {
    EXPECT_TRUE(has(page, std::string("<section id=\"") + id + "\">")) << id;
    EXPECT_TRUE(has(page, std::string("<a href=\"#") + id + "\">")) << id;
  }
  EXPECT_FALSE(has(page, "class=\"absent\"")) << page;
  EXPECT_FALSE(has(page, "class=\"problem\"")) << page;
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_TRUE(has(page, "</html>\n"));
}

TEST_F(report_page, RunSectionCountsAndListsEachScenario) {
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "4 scenarios: 1 passed, 1 failed, 1 errors, 1 skipped; 4.5 s in all")) << page;
  EXPECT_TRUE(has(page, "<tr><td>shape_mismatch</td><td class=\"result fail\">fail</td><td class=\"number\">2.5 s</td>"
                        "<td>snapshot differs</td></tr>"))
      << page;
  EXPECT_TRUE(has(page, "<td>cuda_only</td><td class=\"result skip\">skip</td>"));
}

TEST_F(report_page, FailedScenariosShowTheirDiffOrTheirProblemsEscaped) {
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "<h3>shape_mismatch <span class=\"result fail\">fail</span></h3>"));
  EXPECT_TRUE(has(page, "expected: &quot;shape [4] &lt;vs&gt; [2, 2] &amp; no transform&quot;")) << page;
  EXPECT_TRUE(has(page, "<a href=\"runs/shape_mismatch/diff.txt\">diff.txt</a>"));
  // worker_crash has no diff: its problems stand in for it, escaped.
  EXPECT_TRUE(has(page, "&lt;script&gt;alert(&quot;not run&quot;)&lt;/script&gt; &amp; the log ends")) << page;
  EXPECT_FALSE(has(page, "<script"));
  EXPECT_FALSE(has(page, "<h3>identity_1x1"));  // passed: no diff to show
}

TEST_F(report_page, BenchSectionInlinesTheRatioChartAndRendersTheTables) {
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "<div class=\"plot\">\n<svg")) << page;
  EXPECT_TRUE(has(page, "graft time / floor time vs size"));
  EXPECT_TRUE(has(page, "<th>case</th><th>what</th><th>target</th>")) << page;
  EXPECT_TRUE(has(page, "<h3>graft bench report</h3>"));  // the file's # under the page's h2
  EXPECT_TRUE(has(page, "<a href=\"bench/base.json\">base.json</a>"));
}

TEST_F(report_page, BenchSectionRendersThePythonBenchTable) {
  dir_.write("reports/bench/python_bench.md",
             "## Python: graft and sglang's grafter\n\n| size | raw recv | sglang |\n| --- | --- | --- |\n"
             "| 1 MiB | 0.40 ms | 35.60x |\n");
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "<th>size</th><th>raw recv</th><th>sglang</th>")) << page;
  EXPECT_TRUE(has(page, "<td>35.60x</td>")) << page;
  EXPECT_LT(page.find("graft bench report"), page.find("graft and sglang&#39;s grafter")) << page;
}

TEST_F(report_page, ConformanceSectionRendersTheTableAndLinksItsJson) {
  std::filesystem::remove(reports_ / "conformance.md");
  EXPECT_TRUE(has(render_report_page(reports_), "<li>No conformance table: graft conformance writes one."));
  dir_.write("reports/conformance.md",
             "Every scenario.\n\n| scenario | graft C++ | sglang |\n|---|---|---|\n| desync | pass | FAIL: changed |\n");
  dir_.write("reports/conformance.json", "{}");
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "<section id=\"conformance\">")) << page;
  EXPECT_TRUE(has(page, "<th>scenario</th><th>graft C++</th><th>sglang</th>")) << page;
  EXPECT_TRUE(has(page, "<td>FAIL: changed</td>")) << page;
  EXPECT_TRUE(has(page, "href=\"conformance.json\"")) << page;
}

TEST_F(report_page, LocalizeSectionNamesTheCulpritAndTolerance) {
  const std::string page = render_report_page(reports_);
  EXPECT_TRUE(has(page, "<dd class=\"fail\">mlp_output[2] (layer 2): local rel_diff")) << page;
  EXPECT_TRUE(has(page, "<dt>tolerance</dt><dd>bfloat16 0.001, float16 0.0001, float32 1e-06, float64 1e-10"))
      << page;
  EXPECT_TRUE(has(page, "graft localize: no_residual"));  // the plot, inline
  EXPECT_GT(count(page, "<title>mlp_output[2]"), 0u);      // with its hover text
}

TEST_F(report_page, AnEmptyFolderSaysWhatIsAbsent) {
  const std::string page = render_report_page(dir_ / "empty");
  EXPECT_FALSE(has(page, "<section"));
  EXPECT_FALSE(has(page, "<nav>"));
  EXPECT_TRUE(has(page, "<li>No graft run: there is no summary.json"));
  EXPECT_TRUE(has(page, "<li>No snapshot diffs:"));
  EXPECT_TRUE(has(page, "<li>No conformance table:"));
  EXPECT_TRUE(has(page, "<li>No bench:"));
  EXPECT_TRUE(has(page, "<li>No localize run:"));
}

TEST_F(report_page, AMissingPartLeavesItsSectionOutAndSaysSo) {
  std::filesystem::remove_all(reports_ / "bench");
  const std::string page = render_report_page(reports_);
  EXPECT_FALSE(has(page, "<section id=\"bench\">"));
  EXPECT_TRUE(has(page, "<li>No bench: there is no bench/ folder with a report"));
  EXPECT_TRUE(has(page, "<section id=\"localize\">"));
}

TEST_F(report_page, BrokenPartsAreShownAsProblemsNotThrown) {
  dir_.write("reports/summary.json", "{\"scenarios\": [1, ");
  dir_.write("reports/bench/ratio.svg", "<svg><script>alert(1)</script></svg>");
  dir_.write("reports/bench/report.md", "| a | b |\n| --- | --- |\n| <i> | `x|y` |\n");
  dir_.write("reports/localize/no_residual/report.json", "{\"points\": 3}");
  dir_.write("reports/localize/other/report.json", "{\"points\": [{\"verdict\": 5}], \"culprit\": {\"index\": 9}}");
  std::string page;
  ASSERT_NO_THROW(page = render_report_page(reports_));
  EXPECT_TRUE(has(page, "summary.json: invalid JSON")) << page;
  EXPECT_TRUE(has(page, "ratio.svg: is not an SVG graft wrote (it holds a &lt;script&gt;), left out")) << page;
  EXPECT_TRUE(has(page, "report.json: no &quot;points&quot; array")) << page;
  EXPECT_TRUE(has(page, "<td>&lt;i&gt;</td>")) << page;
  EXPECT_FALSE(has(page, "<script"));
  EXPECT_TRUE(has(page, "<section id=\"diffs\">") == false);
  EXPECT_TRUE(has(page, "<li>No snapshot diffs: there is no readable summary.json"));
}

TEST_F(report_page, AScenarioNameIsNotAPath) {
  dir_.write("reports/summary.json",
             R"({"schema_version": 1, "scenarios": [{"name": "../summary", "result": "fail", "problems": ["p"]}]})");
  dir_.write("reports/summary/diff.txt", "outside the runs folder");
  const std::string page = render_report_page(reports_);
  EXPECT_FALSE(has(page, "outside the runs folder"));
  EXPECT_TRUE(has(page, "No snapshot diff (runs/../summary/diff.txt)")) << page;
}

TEST_F(report_page, WritesThePageWholeAndLeavesNoTemporaryFile) {
  const std::filesystem::path page = write_report_page(reports_);
  EXPECT_EQ(page, reports_ / "index.html");
  EXPECT_EQ(read_file(page), render_report_page(reports_));
  for (const auto& entry : std::filesystem::directory_iterator(reports_)) {
    EXPECT_EQ(entry.path().extension() == ".tmp", false) << entry.path();
  }
  // A second page replaces the first.
  std::filesystem::remove(reports_ / "summary.json");
  write_report_page(reports_);
  EXPECT_TRUE(has(read_file(page), "<li>No graft run"));
}

TEST_F(report_page, CreatesAMissingFolder) {
  EXPECT_TRUE(std::filesystem::exists(write_report_page(dir_ / "new/reports")));
}

TEST_F(report_page, APageThatCannotBeWrittenIsAnErrorNamingIt) {
  const auto file = dir_.write("not_a_folder", "x");
  try {
    write_report_page(file);
    FAIL() << "expected graft::error";
  } catch (const graft::error& e) {
    EXPECT_TRUE(has(e.what(), (file / "index.html").string() + ": cannot write the report page")) << e.what();
  }
}

}  // namespace
}  // namespace graft::harness
