#include <cstdio>
#include <fstream>
#include <iostream>

#include <graft/harness/conformance.hpp>
#include <graft/harness/report_page.hpp>
#include <graft/harness/snapshot.hpp>

#include "cli/commands.hpp"

namespace graft::harness::cli {

namespace {

bool write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int conformance_command(const paths& p, const std::vector<std::string>& targets, int jobs) {
  std::vector<scenario> loaded;
  bool full = false;
  if (const auto failed = prepare_run("graft conformance", p, targets, grafter_kind::cpp, &loaded, &full)) {
    return *failed;
  }
  std::vector<scenario> scenarios;
  std::vector<std::string> names;
  for (auto& s : loaded) {
    if (s.cuda_ranks() > 0) continue;
    names.push_back(s.name);
    scenarios.push_back(std::move(s));
  }
  std::cout << "graft conformance: " << scenarios.size() << " CPU scenarios (" << loaded.size() - scenarios.size()
            << " with CUDA ranks left out) x " << all_grafter_kinds().size() << " grafters, " << jobs
            << " at a time\n"
            << std::flush;
  std::vector<conformance_column> columns;
  for (grafter_kind kind : all_grafter_kinds()) {
    paths column_paths = p;
    column_paths.reports = p.reports / "conformance" / std::string(to_string(kind));
    const runner_options options = runner_options_for(column_paths, kind, jobs);
    if (const auto problem = python_worker_problem(options)) {
      std::cerr << "graft conformance: " << *problem << "\n";
      return 2;
    }
    std::cout << "\n" << display_name(kind) << ":\n" << std::flush;
    auto results = run_scenarios(scenarios, options, [](std::size_t i, std::size_t n, const scenario_result& r) {
      char line[256];
      std::snprintf(line, sizeof line, "[%zu/%zu] %s ... %s (%.1f s)", i, n, r.name.c_str(),
                    std::string(to_string(r.outcome)).c_str(), r.seconds);
      std::cout << line << (r.problems.empty() ? "" : " - " + r.problems.front().substr(0, 120)) << "\n"
                << std::flush;
    });
    write_summary(column_paths.summary(), results);
    columns.push_back({kind, std::move(results)});
  }
  const std::filesystem::path markdown = p.reports / "conformance.md", json = p.reports / "conformance.json";
  const std::string table = conformance_markdown(names, columns);
  if (!write_text(markdown, table)) {
    std::cerr << "graft conformance: cannot write " << markdown.string() << "\n";
    return 2;
  }
  write_snapshot(json, conformance_json(names, columns));
  std::cout << "\n" << table << "\ntable: " << markdown.string() << "\nreport page: "
            << write_report_page(p.reports).string() << "\n";
  return conformance_exit_code(columns);
}

}  // namespace graft::harness::cli
