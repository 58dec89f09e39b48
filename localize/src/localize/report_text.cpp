#include <graft/localize/report.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace graft::harness::localize {

namespace {

std::string layer_text(const std::optional<std::int64_t>& layer) { return layer ? std::to_string(*layer) : "-"; }

std::string rel_text(const std::optional<measurement>& m) { return m ? format_number(m->rel_diff) : "-"; }

std::string threshold_text(const std::optional<threshold>& t) { return t ? format_number(t->rel_diff) : "-"; }

std::string describe_point(const point_result& p) {
  return p.name + (p.layer_id ? " (layer " + std::to_string(*p.layer_id) + ")" : "");
}

}  // namespace

std::string format_table(const localize_report& report) {
  const std::vector<std::string> header{"point",     "layer",       "accumulated", "acc tol",
                                        "local",     "local tol",   "max_abs",     "verdict"};
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& p : report.points) {
    rows.push_back({p.name + (p.label.find('#') != std::string::npos ? p.label.substr(p.label.find('#')) : ""),
                    layer_text(p.layer_id), rel_text(p.accumulated), threshold_text(p.accumulated_threshold),
                    rel_text(p.local), threshold_text(p.local_threshold),
                    p.local ? format_number(p.local->max_abs) : "-",
                    p.verdict + (report.culprit && &p == &report.points[*report.culprit] ? "  <- culprit" : "")});
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      std::ostringstream cell;
      cell << std::left << std::setw(static_cast<int>(width[c])) << row[c];
      line += cell.str() + (c + 1 < row.size() ? "  " : "");
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  }
  return out.str();
}

std::string format_summary(const localize_report& report) {
  std::ostringstream out;
  if (report.culprit) {
    const point_result& p = report.points[*report.culprit];
    out << "culprit: " << describe_point(p) << ": local rel_diff " << format_number(p.local->rel_diff) << " > "
        << format_number(p.local_threshold->rel_diff) << " (" << p.local_threshold->rule << ")\n";
  } else if (!report.problems.empty()) {
    // A failed pass measured nothing: "no divergence" would be a claim.
    out << "no verdict: the run had problems (below), so no point could be judged\n";
  } else {
    out << "no divergence: every point's local error is within tolerance\n";
  }
  if (report.accumulated_first) {
    const point_result& p = report.points[*report.accumulated_first];
    out << "accumulated error alone would first flag: " << describe_point(p);
    if (report.culprit && *report.accumulated_first != *report.culprit) {
      const std::ptrdiff_t later = static_cast<std::ptrdiff_t>(*report.accumulated_first) -
                                   static_cast<std::ptrdiff_t>(*report.culprit);
      out << (later > 0 ? " (" + std::to_string(later) + " points after the culprit)"
                        : " (" + std::to_string(-later) + " points before the culprit)");
    }
    out << "\n";
  } else if (report.problems.empty()) {
    out << "accumulated error alone would flag nothing\n";
  }
  if (report.calibrated) out << "thresholds calibrated from a noise-floor run\n";
  for (const auto& problem : report.problems) out << "problem: " << problem << "\n";
  return out.str();
}

}  // namespace graft::harness::localize
