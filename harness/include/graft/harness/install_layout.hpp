#pragma once
// Where graft's programs find one another and their data files by default:
// in the build tree they were built in, or, once `cmake --install` has put
// them under a prefix, relative to that prefix (cmake/graft_install_layout.cmake
// names the folders). Decided from the running executable's own path, so an
// installed tree works wherever it is copied; never from the working folder.
// Reads the file system, never throws.

#include <filesystem>
#include <optional>

namespace graft::harness {

struct runtime_paths {
  std::filesystem::path fixtures;  // scenarios/, snapshots/ and localize/
  std::filesystem::path reports;   // where runs write unless told otherwise
  std::filesystem::path plugins;   // the sample transform plugins
  std::filesystem::path worker;    // graft_worker, one rank of a scenario
  std::filesystem::path model;     // graft_model, localize's built-in model
  // The Python scenario workers' interpreter and the folder holding the graft
  // package for it: in a build tree, the Python the package was built for and
  // BUILD/python; installed, python3 from PATH, which has graft installed
  // (python_package empty).
  std::filesystem::path python;
  std::filesystem::path python_package;
};

// PREFIX when executable is PREFIX/bin/NAME and PREFIX holds graft's
// installed fixtures; nullopt for anything else (a build tree).
std::optional<std::filesystem::path> install_prefix_of(const std::filesystem::path& executable);

// The defaults for a program at executable: under its install prefix when it
// is installed (reports in ./reports, the user's working folder), else the
// build tree's (the checkout's fixtures and reports, the worker beside it).
runtime_paths default_runtime_paths(const std::filesystem::path& executable);

// default_runtime_paths for the running program (/proc/self/exe), worked out once.
const runtime_paths& default_runtime_paths();

}  // namespace graft::harness
