#pragma once
// Checks of the paths a command is given, made before it starts any process,
// so that a path that would fail every run alike is named once, up front.
// Each returns why the path cannot serve (for the caller to prefix with its
// option and follow with its fix), or nullopt when it can.

#include <filesystem>
#include <optional>
#include <string>

namespace graft::harness {

// A program to start with child_process: posix_spawn takes the path as given
// (relative to the working directory) and never searches PATH.
std::optional<std::string> unstartable_program_reason(const std::filesystem::path& program);

// A folder to write in; creates it (and its parents) when missing.
std::optional<std::string> unwritable_folder_reason(const std::filesystem::path& folder);

}  // namespace graft::harness
