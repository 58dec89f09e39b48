// The report page as a browser reads it: headless Chromium (GRAFT_CHROMIUM,
// found at configure time) dumps the DOM it built from the page, once parsed
// as HTML and once as XHTML, whose strict parser reports any markup error in
// the DOM as <parsererror>. Label browser; each dump takes about a second.
// Without Chromium each test skips with the reason, except under CI, where a
// lost Chromium must not turn these checks into silent passes.
#include <graft/harness/report_page.hpp>
#include <graft/harness/snapshot_store.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string_view>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace graft::harness {
namespace {

using testing::temp_dir;

constexpr int kChromiumTimeoutS = 60;

bool has(const std::string& dom, const std::string& text) { return dom.find(text) != std::string::npos; }

// The DOM Chromium built from file, as its --dump-dom prints it; the
// profile in its own folder, so that runs at once do not share one.
std::string dump_dom(const std::filesystem::path& file, const std::filesystem::path& profile) {
  const std::string command = "timeout " + std::to_string(kChromiumTimeoutS) + " '" GRAFT_CHROMIUM
                              "' --headless --no-sandbox --disable-gpu --user-data-dir='" + profile.string() +
                              "' --dump-dom 'file://" + file.string() + "' 2>/dev/null";
  const auto started = std::chrono::steady_clock::now();
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string dom;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) dom.append(buffer, n);
  const int status = ::pclose(pipe);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "chromium --dump-dom " << file.filename().string() << ": " << seconds << " s, exit status " << status
            << "\n";
  ::testing::Test::RecordProperty(file.extension() == ".xhtml" ? "xhtml_seconds" : "html_seconds",
                                  std::to_string(seconds));
  return dom;
}

class report_page_browser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string_view(GRAFT_CHROMIUM).empty()) {
      constexpr const char* kMissing = "no chromium was found on the PATH when graft was configured "
                                       "(apt-get install chromium, then configure again)";
      if (is_ci_from_process_env()) FAIL() << "CI: " << kMissing;
      GTEST_SKIP() << kMissing;
    }
    std::filesystem::copy(GRAFT_REPORT_PAGE_FIXTURES, reports_, std::filesystem::copy_options::recursive);
    page_ = write_report_page(reports_);
  }
  temp_dir dir_;
  std::filesystem::path reports_ = dir_ / "reports";
  std::filesystem::path page_;
};

TEST_F(report_page_browser, HtmlDomHoldsEverySectionAndItsPictures) {
  const std::string dom = dump_dom(page_, dir_ / "profile");
  ASSERT_TRUE(has(dom, "</html>")) << "no DOM from " GRAFT_CHROMIUM ":\n" << dom;
  for (const char* id : {"run", "diffs", "conformance", "bench", "localize"}) {
    EXPECT_TRUE(has(dom, std::string("<section id=\"") + id + "\">")) << id;
  }
  EXPECT_TRUE(has(dom, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(has(dom, "<title>mlp_output[2]"));  // hover text inside the localize plot
  EXPECT_TRUE(has(dom, "<th>case</th>"));          // report.md's tables as tables
  // A message's markup stays text: no element came of it.
  EXPECT_TRUE(has(dom, "&lt;script&gt;alert(\"not run\")&lt;/script&gt;")) << dom;
  EXPECT_FALSE(has(dom, "<script"));
}

TEST_F(report_page_browser, XhtmlParseFindsNoError) {
  const std::filesystem::path xhtml = reports_ / "index.xhtml";
  std::filesystem::copy_file(page_, xhtml);
  const std::string dom = dump_dom(xhtml, dir_ / "profile");
  ASSERT_TRUE(has(dom, "</html>")) << "no DOM from " GRAFT_CHROMIUM ":\n" << dom;
  EXPECT_FALSE(has(dom, "parsererror")) << dom.substr(0, 2000);
  for (const char* id : {"run", "diffs", "conformance", "bench", "localize"}) {
    EXPECT_TRUE(has(dom, std::string("<section id=\"") + id + "\">")) << id;
  }
}

}  // namespace
}  // namespace graft::harness
