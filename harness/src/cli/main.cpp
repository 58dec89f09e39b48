// graft: runs grafting scenarios end to end, diffs and updates log snapshots.

#include <unistd.h>

#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include <graft/harness/localize/localize_command.hpp>
#include <graft/harness/process.hpp>

#include "cli/commands.hpp"

namespace {

// graft_worker lives beside graft in the build tree.
std::filesystem::path default_worker() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("graft_worker") : self.parent_path() / "graft_worker";
}

// The first word that is neither an option, an option's value nor a command,
// or "": CLI11 itself only says "A subcommand is required".
std::string misplaced_command(int argc, char** argv, CLI::App& app) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind('-', 0) == 0) {
      // The global options (--fixtures DIR, ...) all take a value.
      const bool takes_value = arg != "-h" && arg != "--help" && arg.find('=') == std::string::npos;
      if (takes_value && app.get_option_no_throw(arg) != nullptr) ++i;
      continue;
    }
    const auto named = app.get_subcommands([&](CLI::App* sub) { return sub->check_name(arg); });
    return named.empty() ? arg : "";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = graft::harness::cli;
  CLI::App app{"graft: run tensor-grafting scenarios in real processes and check their log snapshots.\n"
               "Exit codes: 0 success, 1 a failure or difference, 2 bad input, 77 (run) every scenario was "
               "skipped (its devices are missing here), so nothing was checked."};
  app.require_subcommand(1);
  app.fallthrough();
  cli::paths p{GRAFT_DEFAULT_FIXTURES_DIR, GRAFT_DEFAULT_REPORTS_DIR, GRAFT_DEFAULT_PLUGINS_DIR, default_worker()};
  app.add_option("--fixtures", p.fixtures, "folder with scenarios/ and snapshots/")->capture_default_str();
  app.add_option("--reports", p.reports, "folder for snapshots/, runs/, summary.json and localize/")->capture_default_str();
  app.add_option("--plugins", p.plugins, "folder of the sample transform plugins")->capture_default_str();
  app.add_option("--worker", p.worker, "the graft_worker executable")->capture_default_str();

  std::vector<std::string> targets;
  int jobs = 1;
  auto* run = app.add_subcommand("run", "run scenarios (default: every one in FIXTURES/scenarios), print progress "
                                        "and a summary, check each log snapshot against its golden");
  run->add_option("scenarios", targets, "scenario files, folders of them, or scenario names");
  run->add_option("-j,--jobs", jobs, "scenarios to run at once (0: one per core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();

  std::string expected, actual;
  auto* diff = app.add_subcommand("diff", "compare two snapshots (structure and strings exactly, numbers within "
                                          "tolerance); exit 0 same, 1 different, 2 bad input");
  diff->add_option("expected", expected, "the reference snapshot (its \"tolerances\" apply)")->required();
  diff->add_option("actual", actual, "the snapshot to check")->required();

  std::vector<std::string> names;
  auto* update = app.add_subcommand("update", "accept pending snapshots as goldens (all, or the named ones); "
                                              "refused under CI");
  update->add_option("scenarios", names, "scenario names");

  auto* list = app.add_subcommand("list", "list scenarios, their golden status, and obsolete goldens");

  int localize_rc = 2;
  auto* localize = graft::harness::localize::add_localize_command(app, &localize_rc);

  // Before parsing: localize runs from its parse callback.
  graft::harness::kill_children_on_termination_signals();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (const std::string word = misplaced_command(argc, argv, app); !word.empty()) {
      std::cerr << "graft: unknown command '" << word << "'; the commands are run, diff, update, list "
                << "and localize (graft --help)\n";
      return 2;
    }
    // --help exits 0; any usage error is bad input.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (jobs == 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    if (run->parsed()) return cli::run_command(p, targets, jobs);
    if (diff->parsed()) return cli::diff_command(expected, actual);
    if (update->parsed()) return cli::update_command(p, names);
    if (list->parsed()) return cli::list_command(p);
    if (localize->parsed()) return localize_rc;
  } catch (const std::exception& e) {
    // Scenario outcomes never throw; what does is the environment (an
    // unwritable reports folder, a missing fixtures folder).
    std::cerr << "graft: " << e.what() << "\n";
  }
  return 2;
}
