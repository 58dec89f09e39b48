#include <graft/plugin_library.hpp>

#include "plugin/library/library_search.hpp"
#include "plugin/library/plugin_registry.hpp"

namespace graft {

plugin_library_info inspect_plugin_library(const std::string& library) {
  const std::string context = "plugin library '" + library + "'";
  const std::unique_ptr<detail::shared_library> opened =
      detail::open_transform_library(library, context);
  const plugin_registry& registry = detail::read_plugin_registry(*opened, "", context);
  plugin_library_info info{opened->path(), registry.abi_version, registry.torch_version, {}};
  for (std::uint64_t i = 0; i < registry.count; ++i) {
    const plugin_registry_entry& entry = registry.entries[i];
    info.transforms.push_back({entry.name, entry.plan != nullptr});
  }
  return info;
}

}  // namespace graft
