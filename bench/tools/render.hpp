#pragma once
// The human report: a markdown table of every figure against its floor and
// target, and an SVG plot of each case's time as a ratio to its floor's
// against size, the floors at 1.0.

#include <map>
#include <string>
#include <vector>

#include "results.hpp"
#include "targets.hpp"

namespace graft_bench {

std::string markdown_report(const std::map<std::string, result>& results, const std::vector<row>& rows,
                            const std::vector<bench_file>& inputs);

// A self-contained SVG (no scripts, no external fonts or files): one panel per
// family and dtype, one line per case (variant and shape) through its ratios
// to its floor from the same run, each point with its figures as hover text.
// Rows without a ratio or a size are left out.
std::string ratio_svg(const std::vector<row>& rows);

// "812 ns", "3.20 us", "14.1 ms"
std::string time_text(double ns);

}  // namespace graft_bench
