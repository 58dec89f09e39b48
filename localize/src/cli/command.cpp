#include <graft/localize/localize_command.hpp>

#include <iostream>
#include <memory>

#include <graft/error.hpp>
#include <graft/harness/report_page.hpp>

#include "cli/command_state.hpp"

namespace graft::harness::localize {

namespace detail {

namespace {

constexpr const char* kDescription =
    "localize: name the dump point where the target first goes wrong on its own.\n"
    "Runs baseline and target twice as real processes: pass 1 compares every point (accumulated error),\n"
    "pass 2 grafts every layer_input from the baseline and compares the rest (each layer's local error).\n"
    "The culprit is the first point whose LOCAL rel_diff breaks tolerance. Writes report.json, table.txt\n"
    "and plot.svg to REPORTS/localize/NAME, then the page REPORTS/index.html.\n"
    "Exit: 0 no divergence, 1 divergence, 2 bad input or failed run.";

}  // namespace

int run_command(const command_state& state) {
  if (!state.scenario.empty()) return run_scenario(state);
  const localize_options options = to_localize_options(state);
  const localize_report report = run_localize(options);
  if (state.json) {
    std::cout << to_json(report).dump(2) << "\n";
  } else {
    std::cout << format_table(report) << "\n" << format_summary(report);
    std::cout << "report: " << (options.run_directory() / "report.json").string() << "\n"
              << "plot:   " << (options.run_directory() / "plot.svg").string() << "\n";
  }
  write_page(options, state.json ? nullptr : &std::cout);
  if (!report.problems.empty()) return 2;
  return report.diverges() ? 1 : 0;
}

void write_page(const localize_options& options, std::ostream* out) {
  try {
    const std::filesystem::path page = write_report_page(options.reports_dir);
    if (out != nullptr) *out << "page:   " << page.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "graft localize: warning: " << e.what() << "\n";
  }
}

// graft's --reports, given before the command (graft --reports DIR localize),
// names the reports folder for localize as it does for graft run; localize's
// own --reports, after the command, is the more specific and wins.
void take_graft_reports(const CLI::App& command, command_state& state) {
  const CLI::App* graft = command.get_parent();
  if (graft == nullptr || command.get_option("--reports")->count() > 0) return;
  const CLI::Option* reports = graft->get_option_no_throw("--reports");
  if (reports != nullptr && reports->count() > 0) state.reports = reports->as<std::string>();
}

}  // namespace detail

namespace {

void bind(CLI::App& app, int* exit_code) {
  auto state = std::make_shared<detail::command_state>();
  detail::add_options(app, *state);
  app.callback([&app, state, exit_code] {
    try {
      detail::take_graft_reports(app, *state);
      *exit_code = detail::run_command(*state);
    } catch (const std::exception& e) {
      std::cerr << "graft localize: " << e.what() << "\n";
      *exit_code = 2;
    }
  });
}

}  // namespace

CLI::App* add_localize_command(CLI::App& app, int* exit_code) {
  CLI::App* command = app.add_subcommand("localize", detail::kDescription);
  bind(*command, exit_code);
  return command;
}

void setup_localize_app(CLI::App& app, int* exit_code) {
  app.description(detail::kDescription);
  bind(app, exit_code);
}

}  // namespace graft::harness::localize
