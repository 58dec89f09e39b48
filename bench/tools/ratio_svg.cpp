#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include <graft/harness/text_format.hpp>

#include "render.hpp"

namespace graft_bench {
namespace {

using graft::harness::escape_xml;

constexpr double kWidth = 900, kPanelHeight = 330;
constexpr double kLeft = 70, kRight = 370, kTop = 40, kBottom = 45;  // plot margins within a panel

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                               "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

std::string num(double v) { return graft::harness::format_fixed(v, 1); }

std::string family_of(const std::string& variant) {
  if (variant.rfind("cuda_", 0) == 0) return "CUDA";
  if (variant.rfind("BM_", 0) == 0) return "c10d exchange";
  if (variant.rfind("c10d_", 0) == 0) return "c10d graft";
  return "CPU";
}

// What tells one line from another in a panel: the variant and the shape of
// the run (c10d_graft_off 1x1 vs 2x2); the dtype is the panel's, the size the
// x axis.
std::string line_name(const result& r) { return r.shape.empty() ? r.variant : r.variant + " " + r.shape; }

// "0.5x", "1x", "16x"
std::string ratio_text(double ratio) { return graft::harness::format_significant(ratio, 3) + "x"; }

struct point {
  double bytes = 0, ratio = 0;
  bool below_floor = false;  // drawn with a red ring: the floor or the figure is wrong
  std::string hover;  // "recv_identity_graft/float32/1048576: 1.05x recv_floor_copy (101 us / 96.2 us)"
};
struct line {
  std::string floor;  // the floor variant it is divided by
  std::vector<point> points;
};
using series = std::map<std::string, line>;  // by line_name

void panel(std::ostringstream& out, const std::string& title, const series& lines, double y0) {
  double min_b = 1e300, max_b = 0, min_r = 1, max_r = 1;  // the floor's 1.0 is always on the axis
  for (const auto& [name, l] : lines) {
    for (const point& p : l.points) {
      min_b = std::min(min_b, p.bytes);
      max_b = std::max(max_b, p.bytes);
      min_r = std::min(min_r, p.ratio);
      max_r = std::max(max_r, p.ratio);
    }
  }
  // One size alone sits mid-axis, with a size tick either side.
  const double mid = (std::log2(min_b) + std::log2(max_b)) / 2;
  const double lx0 = std::min(std::log2(min_b), mid - 1), lx1 = std::max(std::log2(max_b), mid + 1);
  // A margin of a quarter power of two keeps the floor and a ratio near a
  // power of two off the panel's edge.
  const double ly0 = std::floor(std::log2(min_r) - 0.25), ly1 = std::ceil(std::log2(max_r) + 0.25);
  const double px0 = kLeft, px1 = kWidth - kRight, py0 = y0 + kTop, py1 = y0 + kPanelHeight - kBottom;
  const auto x = [&](double b) { return px0 + (std::log2(b) - lx0) / (lx1 - lx0) * (px1 - px0); };
  const auto y = [&](double r) { return py1 - (std::log2(r) - ly0) / (ly1 - ly0) * (py1 - py0); };

  out << "<text x='" << num(px0) << "' y='" << num(y0 + 24) << "' font-size='15' font-weight='bold'>"
      << escape_xml(title) << "</text>\n";
  out << "<rect x='" << num(px0) << "' y='" << num(py0) << "' width='" << num(px1 - px0) << "' height='"
      << num(py1 - py0) << "' fill='none' stroke='#444'/>\n";
  for (double e = ly0; e <= ly1; e += ly1 - ly0 > 8 ? 2 : 1) {
    const double ty = y(std::pow(2.0, e));
    out << "<line x1='" << num(px0) << "' y1='" << num(ty) << "' x2='" << num(px1) << "' y2='" << num(ty)
        << "' stroke='#ddd'/>\n<text x='" << num(px0 - 6) << "' y='" << num(ty + 4)
        << "' font-size='11' text-anchor='end'>" << ratio_text(std::pow(2.0, e)) << "</text>\n";
  }
  for (double e = std::ceil(lx0); e <= lx1; e += lx1 - lx0 > 4 ? 2 : 1) {
    const double tx = x(std::pow(2.0, e));
    out << "<line x1='" << num(tx) << "' y1='" << num(py0) << "' x2='" << num(tx) << "' y2='" << num(py1)
        << "' stroke='#eee'/>\n<text x='" << num(tx) << "' y='" << num(py1 + 16)
        << "' font-size='11' text-anchor='middle'>" << size_text(static_cast<std::int64_t>(std::pow(2.0, e)))
        << "</text>\n";
  }
  out << "<text x='" << num((px0 + px1) / 2) << "' y='" << num(py1 + 34)
      << "' font-size='12' text-anchor='middle'>target size (log scale)</text>\n"
      << "<text x='" << num(16) << "' y='" << num((py0 + py1) / 2) << "' font-size='12' transform='rotate(-90 16 "
      << num((py0 + py1) / 2) << ")' text-anchor='middle'>median time / floor's median (log scale)</text>\n";

  // Every floor is 1.0 by definition: one black dashed line stands for them all.
  out << "<line x1='" << num(px0) << "' y1='" << num(y(1)) << "' x2='" << num(px1) << "' y2='" << num(y(1))
      << "' stroke='#000' stroke-width='2' stroke-dasharray='6 4'/>\n"
      << "<line x1='" << num(px1 + 12) << "' y1='" << num(py0 + 8) << "' x2='" << num(px1 + 36) << "' y2='"
      << num(py0 + 8) << "' stroke='#000' stroke-width='2' stroke-dasharray='6 4'/>\n<text x='" << num(px1 + 40)
      << "' y='" << num(py0 + 12) << "' font-size='11'>floor (1.0)</text>\n";
  int color = 0, legend = 1;
  for (const auto& [name, l] : lines) {
    const char* stroke = kColors[color++ % 10];
    std::ostringstream path;
    for (const point& p : l.points) path << num(x(p.bytes)) << "," << num(y(p.ratio)) << " ";
    out << "<polyline fill='none' stroke='" << stroke << "' stroke-width='1.8' points='" << path.str() << "'/>\n";
    for (const point& p : l.points) {
      if (p.below_floor) {
        out << "<circle cx='" << num(x(p.bytes)) << "' cy='" << num(y(p.ratio))
            << "' r='7' fill='none' stroke='#d00' stroke-width='2'/>\n";
      }
      out << "<circle cx='" << num(x(p.bytes)) << "' cy='" << num(y(p.ratio)) << "' r='3' fill='" << stroke
          << "'><title>" << escape_xml(p.hover) << "</title></circle>\n";
    }
    const double ly = py0 + 8 + 16 * legend++;
    out << "<line x1='" << num(px1 + 12) << "' y1='" << num(ly) << "' x2='" << num(px1 + 36) << "' y2='"
        << num(ly) << "' stroke='" << stroke << "' stroke-width='2'/>\n<text x='" << num(px1 + 40) << "' y='"
        << num(ly + 4) << "' font-size='11'>" << escape_xml(name) << " / " << escape_xml(l.floor) << "</text>\n";
  }
}

}  // namespace

std::string ratio_svg(const std::vector<row>& rows) {
  std::map<std::string, series> panels;  // "CPU float32" -> lines
  for (const row& r : rows) {
    const result& m = *r.measured;
    if (!r.ratio || !m.bytes || *m.bytes <= 0) continue;
    const std::string title = family_of(m.variant) + (m.dtype.empty() ? "" : " " + m.dtype);
    line& l = panels[title][line_name(m)];
    l.floor = r.spec->floor;
    l.points.push_back({static_cast<double>(*m.bytes), *r.ratio, r.below_floor,
                        m.name + ": " + ratio_text(*r.ratio) + " " + r.floor->name + " (" + time_text(m.median_ns) +
                            " / " + time_text(r.floor->median_ns) + ")" +
                            (r.below_floor ? ", below its floor beyond the noise" : "")});
  }
  for (auto& [title, lines] : panels) {
    for (auto& [name, l] : lines) {
      std::sort(l.points.begin(), l.points.end(), [](const point& a, const point& b) { return a.bytes < b.bytes; });
    }
  }

  const double height = std::max<double>(1, static_cast<double>(panels.size())) * kPanelHeight;
  std::ostringstream out;
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << num(kWidth) << "' height='" << num(height)
      << "' viewBox='0 0 " << num(kWidth) << " " << num(height) << "' font-family='sans-serif'>\n"
      << "<rect width='100%' height='100%' fill='white'/>\n";
  if (panels.empty()) {
    out << "<text x='20' y='40' font-size='14'>no sized result with its floor from the same run to plot</text>\n";
  }
  double y0 = 0;
  for (const auto& [title, lines] : panels) {
    panel(out, "graft time / floor time vs size: " + title, lines, y0);
    y0 += kPanelHeight;
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace graft_bench
