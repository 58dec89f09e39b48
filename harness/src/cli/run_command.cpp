#include <cstdio>
#include <iostream>
#include <set>

#include <graft/error.hpp>
#include <graft/harness/runner.hpp>
#include <graft/harness/snapshot_store.hpp>

#include "cli/commands.hpp"

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

}  // namespace

int run_command(const paths& p, const std::vector<std::string>& targets, int jobs) {
  std::vector<scenario> scenarios;
  bool full = false;
  try {
    if (!load_all(resolve_targets(p, targets, &full), &scenarios)) return 2;
  } catch (const fixture_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (scenarios.empty()) {
    std::string where = targets.empty() ? p.scenarios().string() : "";
    for (const auto& t : targets) where += (where.empty() ? "" : ", ") + t;
    std::cerr << "no scenarios found in " << where << "\n";
    return 2;
  }
  std::set<std::string> names;
  for (const auto& s : scenarios) {
    if (!names.insert(s.name).second) {
      std::cerr << "two scenarios are named '" << s.name
                << "': names must be unique, since a scenario's name picks its golden and its run folder\n";
      return 2;
    }
  }
  if (const auto problems = run_environment_problems(p); !problems.empty()) {
    for (const auto& problem : problems) std::cerr << "graft run: " << problem << "\n";
    return 2;
  }
  runner_options options{p.fixtures, p.reports, p.plugins, p.worker, is_ci_from_process_env(), jobs, std::nullopt};
  std::cout << "graft run: " << scenarios.size() << " scenario" << (scenarios.size() == 1 ? "" : "s") << ", "
            << options.jobs << " at a time" << (options.ci ? " (CI: goldens are read-only)" : "") << "\n"
            << std::flush;
  const auto results = run_scenarios(scenarios, options, [](std::size_t i, std::size_t n, const scenario_result& r) {
    char line[256];
    std::snprintf(line, sizeof line, "[%zu/%zu] %s ... %s (%.1f s)", i, n, r.name.c_str(),
                  std::string(to_string(r.outcome)).c_str(), r.seconds);
    std::cout << line << (r.note.empty() ? "" : " - " + r.note) << "\n";
    for (const auto& problem : r.problems) std::cout << indented(problem);
    std::cout << std::flush;
  });
  std::cout << "\n" << summary_table(results);
  write_summary(p.summary(), results);

  const snapshot_dirs dirs{p.goldens(), p.snapshots()};
  const auto pending = pending_names(dirs);
  if (!pending.empty()) {
    std::cout << pending.size() << " pending snapshot" << (pending.size() == 1 ? "" : "s") << " in "
              << p.snapshots().string() << ": review with graft diff GOLDEN PENDING, accept with graft update "
              << "[NAME...] --reports " << p.reports.string() << "\n";
  }
  if (full) {
    std::set<std::string> names;
    for (const auto& s : scenarios) names.insert(s.name);
    for (const auto& name : obsolete_goldens(dirs, names)) {
      std::cout << "obsolete golden (no scenario): " << dirs.golden_path(name).string() << "; delete it\n";
    }
  }
  return run_exit_code(results);
}

}  // namespace graft::harness::cli
