#include <graft/localize/report.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <graft/harness/text_format.hpp>

namespace graft::harness::localize {

namespace {

constexpr double kMinWidth = 960, kHeight = 440;
// Each point gets at least this much width, so that the labels under the
// axis stay apart and a 200-layer model is as readable as a 3-layer one.
constexpr double kPointWidth = 16;
constexpr double kLeft = 72, kRight = 24, kTop = 48, kBottom = 120;
constexpr double kLowestDecade = -20;  // exact zeros sit on the bottom edge
constexpr const char* kAccumulatedColour = "#1f77b4";
constexpr const char* kLocalColour = "#ff7f0e";
constexpr const char* kThresholdColour = "#7f7f7f";
constexpr const char* kCulpritColour = "#d62728";

std::string fixed(double v) { return format_fixed(v, 1); }

struct scale {
  double lo = -12, hi = 0;  // decades
  std::size_t count = 1;
  double width = kMinWidth;
  double step() const { return (width - kLeft - kRight) / static_cast<double>(count); }
  double x(std::size_t i) const { return kLeft + (static_cast<double>(i) + 0.5) * step(); }
  double y(double v) const {
    const double decade = std::isnan(v) || std::isinf(v) ? hi : (v > 0 ? std::log10(v) : lo);
    const double clamped = std::clamp(decade, lo, hi);
    return kTop + (hi - clamped) / (hi - lo) * (kHeight - kTop - kBottom);
  }
};

scale make_scale(const localize_report& report) {
  scale s;
  s.count = std::max<std::size_t>(report.points.size(), 1);
  s.width = std::max(kMinWidth, kLeft + kRight + kPointWidth * static_cast<double>(s.count));
  double lo = 0, hi = 0;
  bool any = false;
  const auto see = [&](double v) {
    if (!(v > 0) || std::isinf(v)) return;
    const double d = std::log10(v);
    lo = any ? std::min(lo, d) : d;
    hi = any ? std::max(hi, d) : d;
    any = true;
  };
  for (const auto& p : report.points) {
    if (p.accumulated) see(p.accumulated->rel_diff);
    if (p.local) see(p.local->rel_diff);
    if (p.local_threshold) see(p.local_threshold->rel_diff);
  }
  if (any) {
    s.lo = std::max(kLowestDecade, std::floor(lo) - 1);
    s.hi = std::max(std::ceil(hi), s.lo + 1);
  }
  return s;
}

// What a marker says on hover: "mlp_output[2]: local rel_diff 0.0312
// (tolerance 0.001, diverges)".
std::string hover_text(const point_result& p, bool accumulated) {
  const auto& m = accumulated ? p.accumulated : p.local;
  const auto& t = accumulated ? p.accumulated_threshold : p.local_threshold;
  const bool breaks = accumulated ? p.accumulated_breaks : p.local_breaks;
  return p.label + ": " + (accumulated ? "accumulated" : "local") + " rel_diff " + format_number(m->rel_diff) +
         (t ? " (tolerance " + format_number(t->rel_diff) + (breaks ? ", breaks it" : "") + ")" : "") +
         ", verdict " + p.verdict;
}

// One series as a polyline plus a marker per point (hollow for an exact
// zero), each marker with its hover text.
void series(std::ostringstream& out, const localize_report& report, const scale& s, const char* colour,
            bool accumulated) {
  std::string points;
  std::ostringstream markers;
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    const auto& m = accumulated ? report.points[i].accumulated : report.points[i].local;
    if (!m) continue;
    const std::string x = fixed(s.x(i)), y = fixed(s.y(m->rel_diff));
    points += x + "," + y + " ";
    const bool zero = m->rel_diff == 0;
    markers << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3\" stroke=\"" << colour << "\" fill=\""
            << (zero ? "white" : colour) << "\"><title>" << escape_xml(hover_text(report.points[i], accumulated))
            << "</title></circle>\n";
  }
  if (!points.empty()) points.pop_back();
  out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"" << points << "\"/>\n"
      << markers.str();
}

}  // namespace

std::string render_svg(const localize_report& report) {
  const scale s = make_scale(report);
  const double plot_bottom = kHeight - kBottom;
  std::ostringstream out;
  const std::string width = fixed(s.width), right = fixed(s.width - kRight);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << width << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"14\">graft localize: " << escape_xml(report.run_name)
      << " (rel_diff per point, log scale)</text>\n";

  // Decade grid and labels.
  for (double d = s.lo; d <= s.hi + 1e-9; d += 1) {
    const std::string y = fixed(s.y(std::pow(10.0, d)));
    out << "<line x1=\"" << kLeft << "\" x2=\"" << right << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#e6e6e6\"/>\n"
        << "<text x=\"" << kLeft - 6 << "\" y=\"" << y << "\" text-anchor=\"end\" dominant-baseline=\"middle\">1e"
        << static_cast<int>(d) << "</text>\n";
  }
  // Layer boundaries, labelled once per layer.
  std::optional<std::int64_t> previous;
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    const auto& layer = report.points[i].layer_id;
    if (layer && layer != previous) {
      const std::string x = fixed(s.x(i) - s.step() / 2);
      out << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << kTop << "\" y2=\"" << plot_bottom
          << "\" stroke=\"#cccccc\" stroke-dasharray=\"2,3\"/>\n"
          << "<text x=\"" << x << "\" y=\"" << kTop - 4 << "\" fill=\"#555555\">L" << *layer << "</text>\n";
    }
    previous = layer;
  }
  out << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft << "\" y1=\"" << kTop << "\" y2=\"" << plot_bottom
      << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << kLeft << "\" x2=\"" << right << "\" y1=\"" << plot_bottom << "\" y2=\""
      << plot_bottom << "\" stroke=\"black\"/>\n";

  // The local tolerance as a dashed step line.
  std::string steps;
  const double half = s.step() / 2;
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    if (!report.points[i].local_threshold) continue;
    const std::string y = fixed(s.y(report.points[i].local_threshold->rel_diff));
    steps += fixed(s.x(i) - half) + "," + y + " " + fixed(s.x(i) + half) + "," + y + " ";
  }
  if (!steps.empty()) {
    steps.pop_back();
    out << "<polyline fill=\"none\" stroke=\"" << kThresholdColour
        << "\" stroke-dasharray=\"5,4\" points=\"" << steps << "\"/>\n";
  }
  if (report.culprit) {
    const std::string x = fixed(s.x(*report.culprit));
    out << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << kTop << "\" y2=\"" << plot_bottom
        << "\" stroke=\"" << kCulpritColour << "\" stroke-width=\"2\" opacity=\"0.6\"/>\n"
        << "<text x=\"" << fixed(s.x(*report.culprit) + 4) << "\" y=\"" << kTop + 12 << "\" fill=\""
        << kCulpritColour << "\">culprit: " << escape_xml(report.points[*report.culprit].label) << "</text>\n";
  }
  series(out, report, s, kAccumulatedColour, /*accumulated=*/true);
  series(out, report, s, kLocalColour, /*accumulated=*/false);

  // Point labels under the axis.
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    const std::string x = fixed(s.x(i)), y = fixed(plot_bottom + 8);
    out << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"9\" text-anchor=\"end\" transform=\"rotate(-60 "
        << x << " " << y << ")\">" << escape_xml(report.points[i].label) << "</text>\n";
  }
  // Legend, at the left: a wide plot opens there.
  const double lx = kLeft;
  const double offsets[] = {0, 135, 330};
  const std::pair<const char*, const char*> entries[] = {{kAccumulatedColour, "accumulated (pass 1)"},
                                                         {kLocalColour, "local (pass 2, inputs grafted)"},
                                                         {kThresholdColour, "local tolerance"}};
  for (std::size_t k = 0; k < 3; ++k) {
    const double x = lx + offsets[k];
    out << "<line x1=\"" << fixed(x) << "\" x2=\"" << fixed(x + 18) << "\" y1=\"30\" y2=\"30\" stroke=\""
        << entries[k].first << "\" stroke-width=\"2\"" << (k == 2 ? " stroke-dasharray=\"5,4\"" : "") << "/>\n"
        << "<text x=\"" << fixed(x + 22) << "\" y=\"34\" font-size=\"10\">" << entries[k].second << "</text>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace graft::harness::localize
