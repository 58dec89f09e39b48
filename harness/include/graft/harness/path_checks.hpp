#pragma once
// Checks of the paths a command is given, made before it starts any process,
// so that a path that would fail every run alike is named once, up front.
// Each returns why the path cannot serve (for the caller to prefix with its
// option and follow with its fix), or nullopt when it can.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace graft::harness {

// A program to start with child_process: posix_spawn takes the path as given
// (relative to the working directory) and never searches PATH.
std::optional<std::string> unstartable_program_reason(const std::filesystem::path& program);

// A folder to write in; creates it (and its parents) when missing.
std::optional<std::string> unwritable_folder_reason(const std::filesystem::path& folder);

// What stands where a command will write: one of folders that exists as
// something else ("PATH is not a folder"), or one of files that exists as a
// folder ("PATH is a folder, not a file"); nullopt when nothing does. Paths
// not there yet are fine: the command makes them.
std::optional<std::string> in_the_way_reason(const std::vector<std::filesystem::path>& folders,
                                             const std::vector<std::filesystem::path>& files);

}  // namespace graft::harness
