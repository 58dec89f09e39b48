#include <graft/localize/report.hpp>

#include <cmath>
#include <fstream>

#include <graft/error.hpp>
#include <graft/harness/path_checks.hpp>
#include <graft/version.hpp>

namespace graft::harness::localize {

namespace {

// JSON has no NaN/Inf: spelled as strings, as the grafter's events do.
nlohmann::json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  return v;
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? number(*v) : nlohmann::json(); }

nlohmann::json measurement_json(const std::optional<measurement>& m, const std::optional<threshold>& t,
                                bool broken) {
  if (!m) return nullptr;
  return {{"rel_diff", number(m->rel_diff)},
          {"max_abs", number(m->max_abs)},
          {"own_dtype", m->own_dtype},
          {"other_dtype", m->other_dtype},
          {"grafted", m->grafted},
          {"threshold", t ? number(t->rel_diff) : nlohmann::json()},
          {"rule", t ? nlohmann::json(t->rule) : nlohmann::json()},
          {"breaks_tolerance", broken}};
}

nlohmann::json point_ref(const localize_report& report, const std::optional<std::size_t>& index) {
  if (!index) return nullptr;
  const point_result& p = report.points[*index];
  return {{"index", *index}, {"name", p.name}, {"label", p.label},
          {"layer_id", p.layer_id ? nlohmann::json(*p.layer_id) : nlohmann::json()}};
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) GRAFT_THROW(error, path.string() + ": cannot write the localize report (is the folder writable?)");
}

}  // namespace

nlohmann::json to_json(const localize_report& report) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : report.points) {
    points.push_back({{"key", p.key},
                      {"name", p.name},
                      {"label", p.label},
                      {"layer_id", p.layer_id ? nlohmann::json(*p.layer_id) : nlohmann::json()},
                      {"accumulated", measurement_json(p.accumulated, p.accumulated_threshold, p.accumulated_breaks)},
                      {"local", measurement_json(p.local, p.local_threshold, p.local_breaks)},
                      {"noise_floor", {{"accumulated", optional_number(p.floor_accumulated)},
                                       {"local", optional_number(p.floor_local)}}},
                      {"verdict", p.verdict}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"graft_version", version()},
          {"run_name", report.run_name},
          {"diverges", report.diverges()},
          {"culprit", point_ref(report, report.culprit)},
          {"accumulated_first", point_ref(report, report.accumulated_first)},
          {"calibrated", report.calibrated},
          {"points", std::move(points)},
          {"problems", report.problems},
          {"settings", report.settings}};
}

constexpr const char* kReportJson = "report.json";
constexpr const char* kTableTxt = "table.txt";
constexpr const char* kPlotSvg = "plot.svg";

void write_report(const localize_report& report, const std::filesystem::path& directory) {
  std::filesystem::create_directories(directory);
  write_file(directory / kReportJson, to_json(report).dump(2) + "\n");
  write_file(directory / kTableTxt, format_table(report) + "\n" + format_summary(report));
  write_file(directory / kPlotSvg, render_svg(report));
}

std::optional<std::string> report_folder_problem(const std::filesystem::path& directory) {
  return in_the_way_reason({directory}, {directory / kReportJson, directory / kTableTxt, directory / kPlotSvg});
}

}  // namespace graft::harness::localize
