#pragma once
// The conformance table: every scenario played by each grafter kind
// (grafter_kind.hpp), one cell per pair: pass, fail (what differed), hang,
// error, skip or not applicable (why). Each cell is a run that happened;
// nothing is filled in from what a grafter is expected to do.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <graft/harness/grafter_kind.hpp>
#include <graft/harness/runner.hpp>

namespace graft::harness {

struct conformance_column {
  grafter_kind kind = grafter_kind::cpp;
  std::vector<scenario_result> results;  // one per scenario, in the table's order
};

// The table as Markdown: a header line, the table (one row per scenario,
// short cells), then every cell that is not a pass with its whole reasons.
std::string conformance_markdown(const std::vector<std::string>& scenarios,
                                 const std::vector<conformance_column>& columns);

// The same as JSON (schema_version 1): {"grafters": [...], "scenarios":
// [{"name", "cells": {KIND: {"result", "problems", "note", "seconds"}}}]}.
nlohmann::json conformance_json(const std::vector<std::string>& scenarios,
                                const std::vector<conformance_column>& columns);

// The exit code of graft conformance: 1 when a cell of graft's own (C++ or
// Python) failed, hung or had an error; sglang's cells are what is measured
// of sglang, and never fail it. Else 0.
int conformance_exit_code(const std::vector<conformance_column>& columns);

}  // namespace graft::harness
