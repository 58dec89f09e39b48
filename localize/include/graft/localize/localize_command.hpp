#pragma once
// The `localize` command for the graft CLI, and the same options as a whole
// program (graft_localize). Exit codes: 0 no divergence (or, with --scenario,
// every expectation met), 1 a divergence localized (or an expectation
// failed), 2 bad input or a run whose processes failed.
//
// In a CLI:   int localize_rc = 0;
//             CLI::App* localize = add_localize_command(app, &localize_rc);
//             ... app.parse(argc, argv); if (localize->parsed()) return localize_rc;
// The command runs inside parse() (a CLI11 callback) and never throws.

#include <CLI/CLI.hpp>

namespace graft::harness::localize {

// Adds subcommand `localize` to app; its exit code lands in *exit_code.
CLI::App* add_localize_command(CLI::App& app, int* exit_code);

// Gives app itself localize's options and behaviour (for graft_localize).
void setup_localize_app(CLI::App& app, int* exit_code);

}  // namespace graft::harness::localize
