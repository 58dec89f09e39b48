#include <cstdio>
#include <iostream>
#include <set>

#include <graft/harness/errors.hpp>
#include <graft/harness/junit_report.hpp>
#include <graft/harness/report_page.hpp>
#include <graft/harness/runner.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"
#include "cli/json_output.hpp"

namespace graft::harness::cli {

namespace {

std::string indented(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out + "\n";
}

// Loads every file, printing every problem; false when any failed.
bool load_all(const std::vector<std::filesystem::path>& files, std::vector<scenario>* out) {
  bool ok = true;
  for (const auto& f : files) {
    try {
      out->push_back(load_scenario(f));
    } catch (const fixture_error& e) {
      std::cerr << e.what() << "\n";
      ok = false;
    }
  }
  return ok;
}

// Where the progress lines go: stdout, or stderr when stdout carries JSON.
std::ostream& progress_stream(bool json) { return json ? std::cerr : std::cout; }

}  // namespace

std::optional<int> prepare_run(const std::string& command, const paths& p, const std::vector<std::string>& targets,
                               grafter_kind grafter, std::vector<scenario>* scenarios, bool* full) {
  try {
    if (!load_all(resolve_targets(p, targets, full), scenarios)) return 2;
  } catch (const fixture_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (scenarios->empty()) {
    std::string where = targets.empty() ? p.scenarios().string() : "";
    for (const auto& t : targets) where += (where.empty() ? "" : ", ") + t;
    std::cerr << "no scenarios found in " << where << "\n";
    return 2;
  }
  std::set<std::string> names;
  for (const auto& s : *scenarios) {
    if (!names.insert(s.name).second) {
      std::cerr << "two scenarios are named '" << s.name
                << "': names must be unique, since a scenario's name picks its golden and its run folder\n";
      return 2;
    }
  }
  if (const auto problems = run_environment_problems(p); !problems.empty()) {
    for (const auto& problem : problems) std::cerr << command << ": " << problem << "\n";
    return 2;
  }
  if (const auto problem = python_worker_problem(runner_options_for(p, grafter, 1))) {
    std::cerr << command << ": " << *problem << "\n";
    return 2;
  }
  return std::nullopt;
}

runner_options runner_options_for(const paths& p, grafter_kind grafter, int jobs) {
  runner_options options;
  options.fixtures = p.fixtures;
  options.reports = p.reports;
  options.plugins = p.plugins;
  options.worker = p.worker;
  options.ci = is_ci_from_process_env();
  options.jobs = jobs;
  options.grafter = grafter;
  options.python = p.python;
  options.python_package = p.python_package;
  return options;
}

int run_command(const paths& p, const run_request& request) {
  std::vector<scenario> scenarios;
  bool full = false;
  if (const auto failed = prepare_run("graft run", p, request.targets, request.grafter, &scenarios, &full)) {
    return *failed;
  }
  std::set<std::string> names;
  for (const auto& s : scenarios) names.insert(s.name);
  std::ostream& out = progress_stream(request.json);
  const runner_options options = runner_options_for(p, request.grafter, request.jobs);
  out << "graft run: " << scenarios.size() << " scenario" << (scenarios.size() == 1 ? "" : "s") << ", "
      << options.jobs << " at a time"
      << (options.grafter == grafter_kind::cpp ? "" : ", played by " + std::string(display_name(options.grafter)))
      << (options.ci ? " (CI: goldens are read-only)" : "") << "\n"
      << std::flush;
  const auto results =
      run_scenarios(scenarios, options, [&out](std::size_t i, std::size_t n, const scenario_result& r) {
        char line[256];
        std::snprintf(line, sizeof line, "[%zu/%zu] %s ... %s (%.1f s)", i, n, r.name.c_str(),
                      std::string(to_string(r.outcome)).c_str(), r.seconds);
        out << line << (r.note.empty() ? "" : " - " + r.note) << "\n";
        for (const auto& problem : r.problems) out << indented(problem);
        out << std::flush;
      });
  out << "\n" << summary_table(results);
  write_summary(p.summary(), results);
  if (request.junit) write_junit(*request.junit, results);
  out << "report page: " << write_report_page(p.reports).string() << "\n";

  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  const auto pending = pending_names(dirs);
  if (!pending.empty()) {
    out << pending.size() << " pending snapshot" << (pending.size() == 1 ? "" : "s") << " in "
        << p.snapshots().string() << ": review them with graft review --reports " << p.reports.string()
        << " (or graft diff GOLDEN PENDING, then graft update [NAME...])\n";
  }
  int exit_code = run_exit_code(results);
  // Only a run of the whole folder knows which goldens no scenario uses.
  const auto obsolete = full ? obsolete_goldens(dirs, names) : std::vector<std::string>{};
  for (const auto& name : obsolete) {
    out << "obsolete golden (no scenario): " << dirs.golden_path(name).string()
        << (options.ci ? "; fails the run under CI" : "") << "; delete it with graft update --prune\n";
  }
  if (options.ci && !obsolete.empty()) exit_code = 1;
  if (request.json) {
    nlohmann::json doc = summary_json(results);
    doc["pending_snapshots"] = pending;
    doc["obsolete_goldens"] = obsolete;
    doc["exit_code"] = exit_code;
    print_json(doc);
  }
  return exit_code;
}

}  // namespace graft::harness::cli
