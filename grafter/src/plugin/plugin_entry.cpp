#include "plugin/plugin_entry.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <graft/transform_loader.hpp>

#include "plugin/elf_exports.hpp"

namespace graft::detail {
namespace {

std::string register_hint(const std::string& symbol) {
  return "register it in the plugin with GRAFT_REGISTER_TRANSFORM(" + symbol +
         ", function) from <graft/plugin.hpp>";
}

[[noreturn]] void fail(plugin_load_error_kind kind, std::string_view spec,
                       const std::string& message) {
  throw plugin_load_error(kind, "transform spec '" + std::string(spec) + "': " + message);
}

// Libraries built against the same libtorch minor release share its C++ ABI.
std::string_view major_minor(std::string_view version) {
  const std::size_t first = version.find('.');
  if (first == std::string_view::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

// The library's own exports, or nullopt when its file cannot be parsed (then
// dlsym alone decides, without the finer diagnostics).
std::optional<std::vector<elf_export>> own_exports(const shared_library& library) {
  try {
    return read_elf_exports(library.path());
  } catch (const plugin_error&) {
    return std::nullopt;
  }
}

std::string exported_transforms(const std::vector<elf_export>& exports) {
  const std::string prefix = kGraftTransformEntryPrefix;
  std::string names;
  for (const elf_export& e : exports) {
    if (!e.is_function || e.name.compare(0, prefix.size(), prefix) != 0) continue;
    names += (names.empty() ? "" : ", ") + e.name.substr(prefix.size());
  }
  return names.empty() ? "it exports no graft transforms"
                       : "the transforms it exports are: " + names;
}

const elf_export* find_export(const std::vector<elf_export>& exports, const std::string& name) {
  const auto it =
      std::lower_bound(exports.begin(), exports.end(), name,
                       [](const elf_export& e, const std::string& n) { return e.name < n; });
  return it != exports.end() && it->name == name ? &*it : nullptr;
}

// The entry's address, after telling apart the ways a symbol can fail to be one.
void* entry_address(const shared_library& library, const std::string& symbol,
                    std::string_view spec) {
  const std::string entry = kGraftTransformEntryPrefix + symbol;
  const std::string& path = library.path();
  const std::optional<std::vector<elf_export>> exports = own_exports(library);
  if (!exports) {
    if (void* address = library.find(entry)) return address;
    if (library.find(symbol) != nullptr) {
      fail(plugin_load_error_kind::not_a_transform, spec,
           "'" + symbol + "' is visible from '" + path +
               "' but is not a graft transform (no entry '" + entry + "'); " +
               register_hint(symbol));
    }
    fail(plugin_load_error_kind::symbol_not_found, spec,
         "'" + path + "' has no transform '" + symbol + "' (looked for '" + entry + "')");
  }

  const elf_export* found = find_export(*exports, entry);
  if (found == nullptr) {
    if (find_export(*exports, symbol) != nullptr) {
      fail(plugin_load_error_kind::not_a_transform, spec,
           "'" + symbol + "' is exported by '" + path +
               "' but is not a graft transform (no entry '" + entry + "'); " +
               register_hint(symbol) + "; " + exported_transforms(*exports));
    }
    fail(plugin_load_error_kind::symbol_not_found, spec,
         "'" + path + "' has no transform '" + symbol + "' (looked for '" + entry + "' and '" +
             symbol + "'); " + exported_transforms(*exports) + ". Check SYMBOL's spelling");
  }
  if (!found->is_function) {
    fail(plugin_load_error_kind::not_a_transform, spec,
         "'" + entry + "' in '" + path + "' is data, not a transform entry function; " +
             register_hint(symbol));
  }
  void* address = library.find(entry);
  if (address == nullptr) {
    fail(plugin_load_error_kind::symbol_not_found, spec,
         "'" + entry + "' is listed in '" + path + "' but the dynamic loader cannot resolve it");
  }
  return address;
}

}  // namespace

const graft_transform_descriptor* find_transform_descriptor(const shared_library& library,
                                                            const std::string& symbol,
                                                            std::string_view spec) {
  const std::string& path = library.path();
  const auto entry = reinterpret_cast<graft_transform_entry>(entry_address(library, symbol, spec));
  const graft_transform_descriptor* descriptor = entry();
  if (descriptor == nullptr || descriptor->magic != kGraftPluginMagic) {
    fail(plugin_load_error_kind::not_a_transform, spec,
         "'" + std::string(kGraftTransformEntryPrefix) + symbol + "' in '" + path +
             "' does not return a graft transform descriptor (" +
             (descriptor == nullptr ? "null" : "bad magic") + "); " + register_hint(symbol));
  }
  if (descriptor->abi_version != kGraftPluginAbiVersion) {
    fail(plugin_load_error_kind::abi_mismatch, spec,
         "transform '" + symbol + "' in '" + path + "' has plugin ABI version " +
             std::to_string(descriptor->abi_version) + " but this graft speaks version " +
             std::to_string(kGraftPluginAbiVersion) +
             "; rebuild the plugin against this graft's <graft/plugin.hpp>");
  }
  const std::string_view plugin_torch =
      descriptor->torch_version != nullptr ? descriptor->torch_version : "(none)";
  if (major_minor(plugin_torch) != major_minor(TORCH_VERSION)) {
    fail(plugin_load_error_kind::abi_mismatch, spec,
         "transform '" + symbol + "' in '" + path + "' was built against libtorch " +
             std::string(plugin_torch) + " but this graft uses libtorch " + TORCH_VERSION +
             "; rebuild the plugin against libtorch " + TORCH_VERSION);
  }
  if (descriptor->call == nullptr) {
    fail(plugin_load_error_kind::not_a_transform, spec,
         "transform '" + symbol + "' in '" + path + "' has a descriptor without a function; " +
             register_hint(symbol));
  }
  return descriptor;
}

const graft_fused_plan_descriptor* find_fused_plan_descriptor(const shared_library& library,
                                                              const std::string& symbol) {
  void* address = library.find(kGraftFusedPlanEntryPrefix + symbol);
  if (address == nullptr) return nullptr;
  const graft_fused_plan_descriptor* descriptor =
      reinterpret_cast<graft_fused_plan_entry>(address)();
  const bool usable = descriptor != nullptr && descriptor->magic == kGraftFusedPlanMagic &&
                      descriptor->abi_version == kGraftFusedPlanAbiVersion &&
                      descriptor->plan != nullptr;
  return usable ? descriptor : nullptr;
}

}  // namespace graft::detail
