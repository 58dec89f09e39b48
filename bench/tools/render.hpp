#pragma once
// The human report: a markdown table of every figure against its floor and
// target, and an SVG plot of latency against size with the floors dashed.

#include <map>
#include <string>
#include <vector>

#include "results.hpp"
#include "targets.hpp"

namespace graft_bench {

std::string markdown_report(const std::map<std::string, result>& results, const std::vector<row>& rows,
                            const std::vector<bench_file>& inputs);

// A self-contained SVG (no scripts, no external fonts or files).
std::string latency_svg(const std::map<std::string, result>& results);

// "812 ns", "3.20 us", "14.1 ms"
std::string time_text(double ns);

}  // namespace graft_bench
