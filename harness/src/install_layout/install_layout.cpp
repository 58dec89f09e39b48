#include <graft/harness/install_layout.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace graft::harness {

namespace fs = std::filesystem;

namespace {

// The install folders relative to the prefix, as cmake/graft_install_layout.cmake sets them.
const fs::path kToolsDir = GRAFT_INSTALL_TOOLSDIR;
const fs::path kHelpersDir = GRAFT_INSTALL_HELPERSDIR;
const fs::path kPluginsDir = GRAFT_INSTALL_PLUGINSDIR;
const fs::path kFixturesDir = GRAFT_INSTALL_FIXTURESDIR;

// PATH's first executable `name`, or the bare name (which then fails to start
// with a message naming it).
fs::path from_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
  return name;
}

// The interpreter a build tree's Python package was built for, as
// python/CMakeLists.txt writes it beside the package.
fs::path built_for_python(const fs::path& package_dir) {
  std::ifstream in(package_dir / "python-executable");
  std::string line;
  if (in && std::getline(in, line) && !line.empty()) return line;
  return from_path("python3");
}

}  // namespace

std::optional<fs::path> install_prefix_of(const fs::path& executable) {
  const fs::path dir = executable.parent_path().lexically_normal();
  fs::path prefix = dir;
  for (const auto& part : kToolsDir) {
    if (!part.empty()) prefix = prefix.parent_path();
  }
  if (prefix.empty() || (prefix / kToolsDir).lexically_normal() != dir) return std::nullopt;
  // A build folder may well be named bin too: only installed fixtures make an install.
  std::error_code ec;
  if (!fs::is_directory(prefix / kFixturesDir, ec)) return std::nullopt;
  return prefix;
}

runtime_paths default_runtime_paths(const fs::path& executable) {
  if (const auto prefix = install_prefix_of(executable)) {
    return {*prefix / kFixturesDir,         "reports",
            *prefix / kPluginsDir,          *prefix / kHelpersDir / "graft_worker",
            *prefix / kHelpersDir / "graft_model", from_path("python3"),
            fs::path()};
  }
  // The build tree's: a program built beside graft_worker runs that one.
  return {GRAFT_BUILD_FIXTURES_DIR, GRAFT_BUILD_REPORTS_DIR, GRAFT_BUILD_PLUGINS_DIR,
          executable.empty() ? fs::path("graft_worker") : executable.parent_path() / "graft_worker",
          GRAFT_BUILD_MODEL,
          built_for_python(GRAFT_BUILD_PYTHON_DIR),
          GRAFT_BUILD_PYTHON_DIR};
}

const runtime_paths& default_runtime_paths() {
  static const runtime_paths paths = [] {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return default_runtime_paths(ec ? fs::path() : self);
  }();
  return paths;
}

}  // namespace graft::harness
