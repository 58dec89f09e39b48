#pragma once
// The one header a transform plugin includes. A plugin is a shared library
// that registers each transform with one line:
//
//   #include <graft/plugin.hpp>
//   at::Tensor double_values(const graft::graft_transform_input& in) {
//     return in.received_list.at(in.recv_rank) * 2;
//   }
//   GRAFT_REGISTER_TRANSFORM(double_it, double_values)
//
// and is named LIBRARY:SYMBOL in the grafter's transform spec
// (libmy_transforms.so:double_it). Every registration of a library, from any
// of its source files, lands in the library's one registry, which it exports
// as graft_plugin_registry (plugin ABI 2, see graft/plugin_abi.hpp) with the
// libtorch version it was built against; the loader rejects anything else.
// Each transform runs behind a firewall that catches every exception inside
// the plugin and hands back its message, so nothing unwinds across the
// library boundary.
//
// A transform whose candidate is, for some calls, just a scaled sender tensor
// can opt in to the grafter's fused path (no temporary, one pass into the
// target) with GRAFT_REGISTER_FUSED_TRANSFORM instead:
//
//   std::optional<graft::fused_plan> double_plan(const graft::graft_transform_input& in) {
//     return graft::fused_plan{static_cast<std::size_t>(in.recv_rank), 2.0};
//   }
//   GRAFT_REGISTER_FUSED_TRANSFORM(double_it, double_values, double_plan)
//
// Tensors cross as at::Tensor, so a plugin must be built against the same
// libtorch (major.minor) as the grafter; the loader checks it. (DLPack would
// lift that constraint at the cost of a C-only API for transform authors.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <graft/plugin_abi.hpp>
#include <graft/transform.hpp>

// Symbols of this header that must stay inside the library that compiles
// them, whatever visibility the library is built with.
#define GRAFT_PLUGIN_LOCAL __attribute__((visibility("hidden")))

namespace graft::detail {

// The transforms one library registered, in registration order, and the
// registry that shows them. Hidden, like every function that holds a static
// here: in a library built without -fvisibility=hidden, a static inside a
// default-visibility inline function is one object for the whole process
// (STB_GNU_UNIQUE, even under RTLD_LOCAL), and every plugin loaded would
// register into the first one's list.
class GRAFT_PLUGIN_LOCAL plugin_registry_builder {
 public:
  void add(const plugin_registry_entry& entry) { entries_.push_back(entry); }

  // Built on the first call, after the library's static initialisers (and
  // so all its registrations) have run.
  const plugin_registry* registry() const {
    static const plugin_registry built{kGraftPluginMagic,
                                       kGraftPluginAbiVersion,
                                       static_cast<std::uint32_t>(sizeof(plugin_registry)),
                                       TORCH_VERSION,
                                       entries_.size(),
                                       entries_.data()};
    return &built;
  }

 private:
  std::vector<plugin_registry_entry> entries_;
};

inline GRAFT_PLUGIN_LOCAL plugin_registry_builder& this_library_registry() {
  static plugin_registry_builder builder;
  return builder;
}

struct GRAFT_PLUGIN_LOCAL transform_registration {
  explicit transform_registration(const plugin_registry_entry& entry) {
    this_library_registry().add(entry);
  }
};

inline void copy_plugin_error(const char* message, char* buffer, std::size_t capacity) {
  if (buffer == nullptr || capacity == 0) return;
  const std::size_t n = std::min(std::strlen(message), capacity - 1);
  std::memcpy(buffer, message, n);
  buffer[n] = '\0';
}

// The exception firewall every registered transform runs behind.
template <typename function_type>
int call_guarded(function_type&& fn, const graft_transform_input* in, at::Tensor* out,
                 char* error_buffer, std::size_t error_capacity) noexcept {
  try {
    *out = fn(*in);
    return 0;
  } catch (const c10::Error& e) {
    copy_plugin_error(e.what_without_backtrace(), error_buffer, error_capacity);
  } catch (const std::exception& e) {
    copy_plugin_error(e.what(), error_buffer, error_capacity);
  } catch (...) {
    copy_plugin_error("unknown exception (not derived from std::exception)", error_buffer,
                      error_capacity);
  }
  return 1;
}

// A plan function behind the same firewall: an exception means "no plan".
template <typename function_type>
int plan_guarded(function_type&& fn, const graft_transform_input* in,
                 graft_plugin_fused_plan* plan) noexcept {
  try {
    const std::optional<fused_plan> found = fn(*in);
    if (!found) return 0;
    plan->source = found->source;
    plan->scale = found->scale;
    return 1;
  } catch (...) {
    return 0;
  }
}

}  // namespace graft::detail

// The library's registry, the one symbol a plugin exports. Inline, so that
// every source file of the library may define it; a registration references
// it, so that it is emitted (an inline function is emitted only where used)
// by exactly the libraries that register transforms, never by a program that
// merely includes this header.
extern "C" __attribute__((visibility("default"))) inline const ::graft::plugin_registry*
graft_plugin_registry() {
  return ::graft::detail::this_library_registry().registry();
}

// GRAFT_REGISTER_TRANSFORM(symbol, function): registers transform `symbol`,
// where function is `at::Tensor function(const graft::graft_transform_input&)`.
// Use once per symbol and library, at namespace scope, in any source file of
// the library (a symbol registered twice in one library fails to link).
#define GRAFT_REGISTER_TRANSFORM(symbol, function) \
  GRAFT_DETAIL_REGISTER_TRANSFORM(symbol, function, nullptr)

// GRAFT_REGISTER_FUSED_TRANSFORM(symbol, function, plan_function): as
// GRAFT_REGISTER_TRANSFORM, with a fused plan, where plan_function is
// `std::optional<graft::fused_plan> plan_function(const graft::graft_transform_input&)`.
// The plan must describe exactly what function returns for that call.
#define GRAFT_REGISTER_FUSED_TRANSFORM(symbol, function, plan_function)                    \
  GRAFT_DETAIL_REGISTER_TRANSFORM(                                                         \
      symbol, function,                                                                    \
      +[](const ::graft::graft_transform_input* in, ::graft::graft_plugin_fused_plan* plan) \
          -> int { return ::graft::detail::plan_guarded(plan_function, in, plan); })

// One registration: the entry added to the library's registry at load time;
// a hidden per-library marker whose second definition is a link error; and
// the reference that makes this source file emit graft_plugin_registry.
#define GRAFT_DETAIL_REGISTER_TRANSFORM(symbol, function, plan_call)                              \
  extern "C" GRAFT_PLUGIN_LOCAL const char graft_transform_registered_twice_##symbol = 0;        \
  namespace {                                                                                     \
  const ::graft::detail::transform_registration graft_registration_##symbol{                     \
      ::graft::plugin_registry_entry{                                                             \
          #symbol,                                                                                \
          +[](const ::graft::graft_transform_input* in, at::Tensor* out, char* error_buffer,      \
              std::size_t error_capacity) -> int {                                                \
            return ::graft::detail::call_guarded(function, in, out, error_buffer, error_capacity); \
          },                                                                                      \
          plan_call}};                                                                            \
  __attribute__((used)) const ::graft::plugin_registry_function graft_registry_of_##symbol =     \
      &::graft_plugin_registry;                                                                   \
  }
