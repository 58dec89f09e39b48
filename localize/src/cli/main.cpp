// graft_localize: the `graft localize` command as a program of its own.
#include <CLI/CLI.hpp>

#include <graft/localize/localize_command.hpp>
#include <graft/harness/process.hpp>

int main(int argc, char** argv) {
  CLI::App app{"graft_localize"};
  int exit_code = 2;
  graft::harness::localize::setup_localize_app(app, &exit_code);
  graft::harness::kill_children_on_termination_signals();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; any usage error is bad input.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
