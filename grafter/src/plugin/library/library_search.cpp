#include "plugin/library/library_search.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include <graft/plugin_load_error.hpp>

namespace graft::detail {
namespace {

std::vector<std::string> plugin_path_directories() {
  std::vector<std::string> dirs;
  const char* value = std::getenv(kGraftPluginPathEnv);
  if (value == nullptr) return dirs;
  std::string_view rest(value);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    if (!dir.empty()) dirs.emplace_back(dir);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return dirs;
}

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// What path is when it exists but is no regular file (dlopen would block on a
// FIFO forever, and read a device); nullopt otherwise, for dlopen to judge.
std::optional<std::string> non_file_kind(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return std::nullopt;
  if (S_ISDIR(info.st_mode)) return "a folder";
  if (S_ISFIFO(info.st_mode)) return "a FIFO";
  if (S_ISSOCK(info.st_mode)) return "a socket";
  return "a device";
}

std::string env_or_unset(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string("'") + value + "'" : std::string("unset");
}

[[noreturn]] void not_found(std::string_view context, const std::string& message) {
  throw plugin_load_error(plugin_load_error_kind::library_not_found,
                          std::string(context) + ": " + message);
}

}  // namespace

std::unique_ptr<shared_library> open_transform_library(const std::string& library,
                                                       std::string_view context) {
  std::string error;
  if (library.find('/') != std::string::npos) {
    if (const auto kind = non_file_kind(library)) {
      not_found(context, "'" + library + "' is " + *kind + ", not a shared library. Check the path");
    }
    if (auto opened = shared_library::open(library, &error)) return opened;
    not_found(context, "cannot load library '" + library + "': " + error +
                        ". Check the path (relative paths start at the working directory) "
                        "and that the file is a shared library built for this machine");
  }

  const std::vector<std::string> dirs = plugin_path_directories();
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + library;
    if (!is_file(candidate)) continue;
    if (auto opened = shared_library::open(candidate, &error)) return opened;
    not_found(context, "found '" + candidate + "' through " + kGraftPluginPathEnv +
                        " but cannot load it: " + error);
  }
  if (auto opened = shared_library::open(library, &error)) return opened;

  std::string searched;
  for (const std::string& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
  not_found(context,
            "library '" + library + "' not found: " + error + ". Searched " + kGraftPluginPathEnv +
                " directories [" + searched +
                "], then dlopen's search (LD_LIBRARY_PATH=" + env_or_unset("LD_LIBRARY_PATH") +
                ", the ld.so cache, the system library directories). Give a path with a '/' "
                "or add the library's directory to " +
                kGraftPluginPathEnv);
}

}  // namespace graft::detail
