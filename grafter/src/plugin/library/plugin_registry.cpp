#include "plugin/library/plugin_registry.hpp"

#include <cinttypes>
#include <cstdio>
#include <set>

#include <torch/version.h>

#include <graft/plugin_load_error.hpp>

namespace graft::detail {
namespace {

// Plugin ABI 1's entries, one per transform: graft_transform_<SYMBOL>.
constexpr const char* kAbi1EntryPrefix = "graft_transform_";

constexpr const char* kRebuild = "rebuild the plugin against this graft's <graft/plugin.hpp>";
constexpr const char* kUseTheMacros =
    "export it only through the registration macros of <graft/plugin.hpp>";

[[noreturn]] void fail(plugin_load_error_kind kind, std::string_view context,
                       const std::string& message) {
  throw plugin_load_error(kind, std::string(context) + ": " + message);
}

std::string register_hint(const std::string& symbol) {
  return "register it with GRAFT_REGISTER_TRANSFORM(" + symbol +
         ", function) from <graft/plugin.hpp>";
}

std::string hex(std::uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, value);
  return text;
}

// Libraries built against the same libtorch minor release share its C++ ABI.
std::string_view major_minor(std::string_view version) {
  const std::size_t first = version.find('.');
  if (first == std::string_view::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

std::string what_it_has(const plugin_registry& registry) {
  std::string names;
  for (std::uint64_t i = 0; i < registry.count; ++i) {
    names += (names.empty() ? "" : ", ") + std::string(registry.entries[i].name);
  }
  return names.empty() ? "it registers no transforms" : "it has: " + names;
}

}  // namespace

const plugin_registry& read_plugin_registry(const shared_library& library, std::string_view symbol,
                                            std::string_view context) {
  const std::string& path = library.path();
  void* address = library.find_own(kGraftPluginRegistrySymbol);
  if (address == nullptr) {
    const std::string wanted(symbol);
    if (!wanted.empty() && library.find_own(kAbi1EntryPrefix + wanted) != nullptr) {
      fail(plugin_load_error_kind::abi_mismatch, context,
           "'" + path + "' was built for plugin ABI 1 (it exports '" + kAbi1EntryPrefix + wanted +
               "' and no " + kGraftPluginRegistrySymbol + "), but this graft speaks plugin ABI " +
               std::to_string(kGraftPluginAbiVersion) + ": " + kRebuild);
    }
    if (!wanted.empty() && library.find_own(wanted) != nullptr) {
      fail(plugin_load_error_kind::not_a_transform, context,
           "'" + wanted + "' is exported by '" + path + "', which is no graft plugin (it exports no " +
               kGraftPluginRegistrySymbol + "); " + register_hint(wanted));
    }
    fail(plugin_load_error_kind::not_a_transform, context,
         "'" + path + "' is no graft plugin: it exports no " + kGraftPluginRegistrySymbol +
             ". Register its transforms with GRAFT_REGISTER_TRANSFORM from <graft/plugin.hpp>; a "
             "plugin built for plugin ABI 1 (one graft_transform_NAME per transform) must be "
             "rebuilt against this graft");
  }
  const plugin_registry* registry = reinterpret_cast<plugin_registry_function>(address)();
  check_plugin_registry(registry, path, context);
  return *registry;
}

void check_plugin_registry(const plugin_registry* registry, const std::string& path,
                           std::string_view context) {
  const std::string source = std::string(kGraftPluginRegistrySymbol) + " of '" + path + "'";
  if (registry == nullptr) {
    fail(plugin_load_error_kind::not_a_transform, context,
         source + " returned no registry; " + kUseTheMacros);
  }
  if (registry->magic != kGraftPluginMagic) {
    fail(plugin_load_error_kind::not_a_transform, context,
         source + " returned something that is not a graft plugin registry (magic " +
             hex(registry->magic) + ", expected " + hex(kGraftPluginMagic) + "); " + kUseTheMacros);
  }
  if (registry->abi_version != kGraftPluginAbiVersion) {
    fail(plugin_load_error_kind::abi_mismatch, context,
         "'" + path + "' was built for plugin ABI " + std::to_string(registry->abi_version) +
             ", but this graft speaks plugin ABI " + std::to_string(kGraftPluginAbiVersion) + ": " +
             kRebuild);
  }
  if (registry->struct_size < sizeof(plugin_registry)) {
    fail(plugin_load_error_kind::abi_mismatch, context,
         "the registry of '" + path + "' is " + std::to_string(registry->struct_size) +
             " bytes, fewer than the " + std::to_string(sizeof(plugin_registry)) +
             " of plugin ABI " + std::to_string(kGraftPluginAbiVersion) + "'s: " + kRebuild);
  }
  const std::string_view plugin_torch =
      registry->torch_version != nullptr ? registry->torch_version : "(none)";
  if (major_minor(plugin_torch) != major_minor(TORCH_VERSION)) {
    fail(plugin_load_error_kind::abi_mismatch, context,
         "'" + path + "' was built against libtorch " + std::string(plugin_torch) +
             " but this graft uses libtorch " + TORCH_VERSION +
             "; rebuild the plugin against libtorch " + TORCH_VERSION);
  }
  if (registry->count > 0 && registry->entries == nullptr) {
    fail(plugin_load_error_kind::not_a_transform, context,
         "the registry of '" + path + "' counts " + std::to_string(registry->count) +
             " transforms but has no entries; " + kUseTheMacros);
  }
  std::set<std::string_view> names;
  for (std::uint64_t i = 0; i < registry->count; ++i) {
    const plugin_registry_entry& entry = registry->entries[i];
    if (entry.name == nullptr || entry.name[0] == '\0') {
      fail(plugin_load_error_kind::not_a_transform, context,
           "entry " + std::to_string(i) + " of the registry of '" + path + "' has no name; " +
               kUseTheMacros);
    }
    if (entry.call == nullptr) {
      fail(plugin_load_error_kind::not_a_transform, context,
           "transform '" + std::string(entry.name) + "' in the registry of '" + path +
               "' has no function; " + kUseTheMacros);
    }
    if (!names.insert(entry.name).second) {
      fail(plugin_load_error_kind::not_a_transform, context,
           "'" + path + "' registers transform '" + entry.name +
               "' twice; give each transform of a library its own SYMBOL");
    }
  }
}

const plugin_registry_entry& find_registered_transform(const shared_library& library,
                                                       const plugin_registry& registry,
                                                       const std::string& symbol,
                                                       std::string_view context) {
  for (std::uint64_t i = 0; i < registry.count; ++i) {
    if (symbol == registry.entries[i].name) return registry.entries[i];
  }
  const std::string& path = library.path();
  if (library.find_own(symbol) != nullptr) {
    fail(plugin_load_error_kind::not_a_transform, context,
         "'" + symbol + "' is exported by '" + path + "' but is not registered as a graft transform; " +
             register_hint(symbol) + "; " + what_it_has(registry));
  }
  fail(plugin_load_error_kind::symbol_not_found, context,
       "'" + path + "' has no transform named '" + symbol + "'; " + what_it_has(registry) +
           ". Check SYMBOL's spelling");
}

}  // namespace graft::detail
