#pragma once
// The plugin ABI, version 2: the plain C layout a transform plugin library
// exports and the loader reads. A plugin library exports one extern "C"
// function, graft_plugin_registry, returning its registry: a header (magic,
// ABI version, the registry's own size, the libtorch version the plugin was
// built against) and one entry per registered transform. <graft/plugin.hpp>
// builds it; this header is the layout alone and needs no libtorch, so that
// a tool listing a library's transforms (graft plugins) reads it without one.
//
// Layout rules: magic and abi_version come first in every version, so that a
// loader reads them before trusting the rest. A compatible extension only
// appends fields to plugin_registry (struct_size says how many bytes the
// plugin has); any other change bumps kGraftPluginAbiVersion. Plugin ABI 1
// exported one graft_transform_<SYMBOL> entry per transform and no registry.

#include <cstddef>
#include <cstdint>

namespace at {
class Tensor;
}  // namespace at

namespace graft {

struct graft_transform_input;

inline constexpr std::uint32_t kGraftPluginAbiVersion = 2;
// "GRAFTXFM" in ASCII (as in ABI 1): tells a registry apart from whatever
// else a symbol of that name might point to.
inline constexpr std::uint64_t kGraftPluginMagic = 0x475241465458464dULL;
// The one symbol a plugin library exports: a plugin_registry_function.
inline constexpr const char* kGraftPluginRegistrySymbol = "graft_plugin_registry";

// Runs the transform on in, storing the candidate in *out. Returns 0 on
// success; otherwise nonzero with a NUL-terminated message in error_buffer
// (truncated to error_capacity). Never throws.
using graft_transform_call = int (*)(const graft_transform_input* in, at::Tensor* out,
                                     char* error_buffer, std::size_t error_capacity);

// graft::fused_plan as it crosses the library boundary.
struct graft_plugin_fused_plan {
  std::uint64_t source;
  double scale;
};

// Returns 1 and fills *plan when this call's candidate is exactly
// plan->scale * in->received_list[plan->source]; 0 when it has no plan (also
// when the plan function threw). Never throws.
using graft_fused_plan_call = int (*)(const graft_transform_input* in,
                                      graft_plugin_fused_plan* plan);

struct plugin_registry_entry {
  const char* name;  // the SYMBOL of LIBRARY:SYMBOL, unique within the library
  graft_transform_call call;
  graft_fused_plan_call plan;  // null: the transform always runs unfused
};

struct plugin_registry {
  std::uint64_t magic;        // kGraftPluginMagic
  std::uint32_t abi_version;  // kGraftPluginAbiVersion of the plugin's build
  std::uint32_t struct_size;  // sizeof(plugin_registry) in the plugin's build
  const char* torch_version;  // TORCH_VERSION of the plugin's build
  std::uint64_t count;
  const plugin_registry_entry* entries;  // count entries, in registration order
};

// What graft_plugin_registry is: the library's registry, complete once the
// library's static initialisers have run (when dlopen returns).
using plugin_registry_function = const plugin_registry* (*)();

}  // namespace graft
