#pragma once
// What a transform plugin library holds, read from its registry without
// running any transform: for tools that list plugins (graft plugins). Needs
// no libtorch; opening a plugin loads the libtorch it links, as dlopen does.

#include <cstdint>
#include <string>
#include <vector>

#include <graft/plugin_load_error.hpp>

namespace graft {

struct plugin_transform_info {
  std::string name;       // the SYMBOL of LIBRARY:SYMBOL
  bool fused_plan = false;  // registered with GRAFT_REGISTER_FUSED_TRANSFORM
};

struct plugin_library_info {
  std::string path;  // the file the dynamic loader opened
  std::uint32_t abi_version = 0;
  std::string torch_version;  // the libtorch the plugin was built against
  std::vector<plugin_transform_info> transforms;  // in registration order
};

// Opens library as a transform spec's LIBRARY is opened (a path with a '/',
// else GRAFT_PLUGIN_PATH's directories, then dlopen's search), reads its
// registry with the loader's checks, and closes it. Throws plugin_load_error
// (library_not_found, not_a_transform, abi_mismatch) naming the library and the fix.
plugin_library_info inspect_plugin_library(const std::string& library);

}  // namespace graft
