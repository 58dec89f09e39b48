// load_transform: spec -> built-in, or plugin library + its vetted registry's
// entry, with one loaded instance per (library file, symbol) while any copy lives.

#include <graft/transform_loader.hpp>

#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include <graft/plugin_abi.hpp>

#include "plugin/library/library_search.hpp"
#include "plugin/library/plugin_registry.hpp"
#include "plugin/transform_spec.hpp"

namespace graft {
namespace {

// Longer plugin messages are truncated; the first 4 KiB name the problem.
constexpr std::size_t kPluginErrorCapacity = 4096;

struct plugin_instance {
  std::unique_ptr<detail::shared_library> library;
  const plugin_registry_entry* entry;  // lives in the library, as long as it is loaded
  std::string label;  // the spec it was first loaded by
};

at::Tensor call_plugin(const plugin_instance& plugin, const graft_transform_input& in) {
  std::array<char, kPluginErrorCapacity> message{};
  at::Tensor out;
  if (plugin.entry->call(&in, &out, message.data(), message.size()) != 0) {
    throw transform_error("user transform '" + plugin.label +
                          "' threw: " + (message[0] != '\0' ? message.data() : "(no message)"));
  }
  if (!out.defined()) {
    throw transform_error("user transform '" + plugin.label +
                          "' returned an undefined tensor; return the candidate for target");
  }
  return out;
}

std::optional<fused_plan> call_plan(const plugin_instance& plugin,
                                    const graft_transform_input& in) {
  graft_plugin_fused_plan found{};
  if (plugin.entry->plan(&in, &found) != 1) return std::nullopt;
  return fused_plan{static_cast<std::size_t>(found.source), found.scale};
}

transform as_transform(std::shared_ptr<const plugin_instance> plugin) {
  std::string name = plugin->entry->name;
  fused_plan_fn plan;
  if (plugin->entry->plan != nullptr) {
    plan = [plugin](const graft_transform_input& in) { return call_plan(*plugin, in); };
  }
  return transform{std::move(name),
                   [plugin = std::move(plugin)](const graft_transform_input& in) {
                     return call_plugin(*plugin, in);
                   },
                   std::move(plan)};
}

std::string canonical_path(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                       &std::free);
  return resolved != nullptr ? std::string(resolved.get()) : path;
}

// Weak entries: the cache never keeps a library loaded by itself.
struct instance_cache {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<const plugin_instance>> entries;
};

instance_cache& cache() {
  static instance_cache instances;
  return instances;
}

}  // namespace

bool is_python_transform_spec(std::string_view spec) { return detail::is_python_spec(spec); }

std::optional<std::string> spec_problem(std::string_view spec) {
  try {
    const detail::transform_spec parsed = detail::parse_transform_spec(spec);
    if (parsed.builtin) detail::make_builtin_transform(parsed);
    return std::nullopt;
  } catch (const plugin_load_error& e) {
    return std::string(e.what());
  }
}

transform load_transform(std::string_view spec) {
  const detail::transform_spec parsed = detail::parse_transform_spec(spec);
  if (parsed.builtin) return detail::make_builtin_transform(parsed);
  if (parsed.python) {
    throw plugin_load_error(
        plugin_load_error_kind::malformed_spec,
        "transform spec '" + parsed.text +
            "' is a Python transform (pkg.module.symbol), which only a grafter made from Python "
            "(import graft) can load; in this program name a plugin as LIBRARY:SYMBOL or a builtin:NAME");
  }

  instance_cache& instances = cache();
  const std::lock_guard<std::mutex> lock(instances.mutex);
  // Opening an already loaded library only bumps its reference count, so
  // resolving the file first and checking the cache after is cheap.
  const std::string context = "transform spec '" + parsed.text + "'";
  std::unique_ptr<detail::shared_library> library =
      detail::open_transform_library(parsed.library, context);
  const std::string key = canonical_path(library->path()) + ":" + parsed.symbol;
  std::weak_ptr<const plugin_instance>& slot = instances.entries[key];
  if (std::shared_ptr<const plugin_instance> cached = slot.lock())
    return as_transform(std::move(cached));

  const plugin_registry& registry =
      detail::read_plugin_registry(*library, parsed.symbol, context);
  const plugin_registry_entry& entry =
      detail::find_registered_transform(*library, registry, parsed.symbol, context);
  auto instance = std::make_shared<const plugin_instance>(
      plugin_instance{std::move(library), &entry, std::string(spec)});
  slot = instance;
  return as_transform(std::move(instance));
}

}  // namespace graft
