#pragma once
// Reading and vetting the registry a plugin library exports (plugin ABI 2,
// graft/plugin_abi.hpp). Needs no libtorch: the loader and graft plugins
// share it. Every message names the library and the fix, after context
// ("transform spec 'x.so:f'") and ": ".

#include <string>
#include <string_view>

#include <graft/plugin_abi.hpp>

#include "plugin/library/shared_library.hpp"

namespace graft::detail {

// The library's registry, vetted by check_plugin_registry. symbol, when not
// empty, is the transform wanted: a library built for plugin ABI 1 is then
// told apart by that transform's ABI 1 entry. Throws plugin_load_error
// (not_a_transform, abi_mismatch).
const plugin_registry& read_plugin_registry(const shared_library& library, std::string_view symbol,
                                            std::string_view context);

// The checks on a registry the library at path returned: not null, magic,
// plugin ABI version, size, libtorch version (major.minor), entries with a
// name and a function, no name twice.
void check_plugin_registry(const plugin_registry* registry, const std::string& path,
                           std::string_view context);

// The entry registered as symbol. Throws plugin_load_error: not_a_transform
// when the library exports a symbol of that name without registering it,
// otherwise symbol_not_found; both list the transforms it has.
const plugin_registry_entry& find_registered_transform(const shared_library& library,
                                                       const plugin_registry& registry,
                                                       const std::string& symbol,
                                                       std::string_view context);

}  // namespace graft::detail
