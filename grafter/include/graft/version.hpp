#pragma once
// graft's version: the CMake project version, plus "+g<commit>" (and
// ".dirty" for uncommitted changes) when built from a git checkout, e.g.
// "0.1.0+g7ce012a4b2c1". Every report says which graft wrote it: graft
// --version, group_init events, summary.json, localize's report.json, the
// bench JSON and graft.__version__ in Python.

namespace graft {

const char* version();

}  // namespace graft
