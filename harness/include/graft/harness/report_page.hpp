#pragma once
// REPORTS/index.html: one self-contained page (inline SVG and CSS, no script,
// nothing fetched) of whatever the reports folder holds:
//
//   run       the last `graft run`: summary.json's counts and every scenario
//             with its result, time and note
//   diffs     each failed scenario's snapshot diff, runs/NAME/diff.txt (its
//             problems from summary.json where there is no diff)
//   bench     each bench*/ folder of ci/bench.sh: ratio.svg inline, report.md's
//             tables, the JSON files it read
//   localize  each localize/NAME/: culprit, tolerance, problems, plot.svg inline
//
// A part that is missing leaves its section out and says so in one line; a
// part that cannot be read (not JSON, the wrong shape, not an SVG) says why in
// its section. Every text from a file is escaped. A file that a tool is
// writing at the same time may show as unreadable until the next page.

#include <filesystem>
#include <string>

namespace graft::harness {

// The page for reports_dir, as text. Never throws for what the folder holds
// or lacks; only std::bad_alloc escapes.
std::string render_report_page(const std::filesystem::path& reports_dir);

// Writes render_report_page(reports_dir) to reports_dir/index.html through a
// temporary file and a rename, so that a reader never sees half a page;
// creates reports_dir when missing. Returns the page's path. Throws
// graft::error naming the path when it cannot be written.
std::filesystem::path write_report_page(const std::filesystem::path& reports_dir);

}  // namespace graft::harness
