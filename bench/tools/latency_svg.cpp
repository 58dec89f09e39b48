#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "render.hpp"

namespace graft_bench {
namespace {

constexpr double kWidth = 760, kPanelHeight = 330;
constexpr double kLeft = 70, kRight = 230, kTop = 40, kBottom = 45;  // plot margins within a panel

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                               "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

std::string family_of(const std::string& variant) {
  if (variant.rfind("cuda_", 0) == 0) return "CUDA";
  if (variant.rfind("BM_", 0) == 0) return "c10d exchange";
  if (variant.rfind("c10d_", 0) == 0) return "c10d graft";
  return "CPU";
}

bool is_floor(const std::string& variant) {
  for (const case_spec& s : case_specs()) {
    if (s.floor == variant) return true;
  }
  return false;
}

// What tells one line from another in a panel: the variant and the shape of
// the run (c10d_graft_off 1x1 vs 2x2); the dtype is the panel's, the size the
// x axis.
std::string line_name(const result& r) { return r.shape.empty() ? r.variant : r.variant + " " + r.shape; }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

struct line {
  bool floor = false;
  std::vector<std::pair<double, double>> points;  // (bytes, ns)
};
using series = std::map<std::string, line>;  // by line_name

void panel(std::ostringstream& out, const std::string& title, const series& lines, double y0) {
  double min_b = 1e300, max_b = 0, min_t = 1e300, max_t = 0;
  for (const auto& [name, l] : lines) {
    for (const auto& [b, t] : l.points) {
      min_b = std::min(min_b, b);
      max_b = std::max(max_b, b);
      min_t = std::min(min_t, t);
      max_t = std::max(max_t, t);
    }
  }
  // One size alone sits mid-axis, with a size tick either side.
  const double mid = (std::log2(min_b) + std::log2(max_b)) / 2;
  const double lx0 = std::min(std::log2(min_b), mid - 1), lx1 = std::max(std::log2(max_b), mid + 1);
  const double ly0 = std::floor(std::log10(min_t)), ly1 = std::max(std::ceil(std::log10(max_t)), ly0 + 1);
  const double px0 = kLeft, px1 = kWidth - kRight, py0 = y0 + kTop, py1 = y0 + kPanelHeight - kBottom;
  const auto x = [&](double b) { return px0 + (std::log2(b) - lx0) / (lx1 - lx0) * (px1 - px0); };
  const auto y = [&](double t) { return py1 - (std::log10(t) - ly0) / (ly1 - ly0) * (py1 - py0); };

  out << "<text x='" << num(px0) << "' y='" << num(y0 + 24) << "' font-size='15' font-weight='bold'>"
      << escape(title) << "</text>\n";
  out << "<rect x='" << num(px0) << "' y='" << num(py0) << "' width='" << num(px1 - px0) << "' height='"
      << num(py1 - py0) << "' fill='none' stroke='#444'/>\n";
  for (double d = ly0; d <= ly1; d += 1) {
    const double ty = py1 - (d - ly0) / (ly1 - ly0) * (py1 - py0);
    out << "<line x1='" << num(px0) << "' y1='" << num(ty) << "' x2='" << num(px1) << "' y2='" << num(ty)
        << "' stroke='#ddd'/>\n<text x='" << num(px0 - 6) << "' y='" << num(ty + 4)
        << "' font-size='11' text-anchor='end'>" << escape(time_text(std::pow(10.0, d))) << "</text>\n";
  }
  for (double e = std::ceil(lx0); e <= lx1; e += lx1 - lx0 > 4 ? 2 : 1) {
    const double tx = px0 + (e - lx0) / (lx1 - lx0) * (px1 - px0);
    out << "<line x1='" << num(tx) << "' y1='" << num(py0) << "' x2='" << num(tx) << "' y2='" << num(py1)
        << "' stroke='#eee'/>\n<text x='" << num(tx) << "' y='" << num(py1 + 16)
        << "' font-size='11' text-anchor='middle'>" << size_text(static_cast<std::int64_t>(std::pow(2.0, e)))
        << "</text>\n";
  }
  out << "<text x='" << num((px0 + px1) / 2) << "' y='" << num(py1 + 34)
      << "' font-size='12' text-anchor='middle'>target size (log scale)</text>\n"
      << "<text x='" << num(16) << "' y='" << num((py0 + py1) / 2) << "' font-size='12' transform='rotate(-90 16 "
      << num((py0 + py1) / 2) << ")' text-anchor='middle'>median latency (log scale)</text>\n";

  // Floors are black and dashed, each with its own dash so that two floors
  // in one panel (1x1 and 2x2) stay apart.
  static const char* const kDashes[] = {"6 4", "2 3", "10 3 2 3"};
  int color = 0, dash = 0, legend = 0;
  for (const auto& [name, l] : lines) {
    const bool floor = l.floor;
    const auto& points = l.points;
    const char* stroke = floor ? "#000" : kColors[color++ % 10];
    const std::string dashed = floor ? std::string(" stroke-dasharray='") + kDashes[dash++ % 3] + "'" : "";
    std::ostringstream path;
    for (const auto& [b, t] : points) path << num(x(b)) << "," << num(y(t)) << " ";
    out << "<polyline fill='none' stroke='" << stroke << "' stroke-width='" << (floor ? 2.5 : 1.8) << "'"
        << dashed << " points='" << path.str() << "'/>\n";
    for (const auto& [b, t] : points) {
      out << "<circle cx='" << num(x(b)) << "' cy='" << num(y(t)) << "' r='2.5' fill='" << stroke << "'/>\n";
    }
    const double ly = py0 + 8 + 16 * legend++;
    out << "<line x1='" << num(px1 + 12) << "' y1='" << num(ly) << "' x2='" << num(px1 + 36) << "' y2='"
        << num(ly) << "' stroke='" << stroke << "' stroke-width='2'" << dashed
        << "/>\n<text x='" << num(px1 + 40) << "' y='" << num(ly + 4) << "' font-size='11'>" << escape(name)
        << (floor ? " (floor)" : "") << "</text>\n";
  }
}

}  // namespace

std::string latency_svg(const std::map<std::string, result>& results) {
  std::map<std::string, series> panels;  // "CPU float32" -> lines
  for (const auto& [name, r] : results) {
    if (!r.error.empty() || !r.bytes || *r.bytes <= 0) continue;
    if (spec_for_variant(r.variant) == nullptr) continue;
    const std::string title = family_of(r.variant) + (r.dtype.empty() ? "" : " " + r.dtype);
    line& l = panels[title][line_name(r)];
    l.floor = is_floor(r.variant);
    l.points.emplace_back(static_cast<double>(*r.bytes), r.median_ns);
  }
  for (auto& [title, lines] : panels) {
    for (auto& [name, l] : lines) std::sort(l.points.begin(), l.points.end());
  }

  const double height = std::max<double>(1, static_cast<double>(panels.size())) * kPanelHeight;
  std::ostringstream out;
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << num(kWidth) << "' height='" << num(height)
      << "' viewBox='0 0 " << num(kWidth) << " " << num(height) << "' font-family='sans-serif'>\n"
      << "<rect width='100%' height='100%' fill='white'/>\n";
  if (panels.empty()) {
    out << "<text x='20' y='40' font-size='14'>no sized results to plot</text>\n";
  }
  double y0 = 0;
  for (const auto& [title, lines] : panels) {
    panel(out, "graft latency vs size: " + title, lines, y0);
    y0 += kPanelHeight;
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace graft_bench
