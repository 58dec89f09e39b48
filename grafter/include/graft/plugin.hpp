#pragma once
// The one header a transform plugin includes. A plugin is a shared library
// that registers each transform with GRAFT_REGISTER_TRANSFORM:
//
//   #include <graft/plugin.hpp>
//   at::Tensor double_values(const graft::graft_transform_input& in) {
//     return in.received_list.at(in.recv_rank) * 2;
//   }
//   GRAFT_REGISTER_TRANSFORM(double_it, double_values)
//
// and is named LIBRARY:SYMBOL in the grafter's transform spec
// (libmy_transforms.so:double_it). The macro exports one extern "C" entry,
// graft_transform_<SYMBOL>, returning a descriptor with a magic number, the
// plugin ABI version and the libtorch version the plugin was built against;
// the loader rejects anything else. The descriptor's call catches every
// exception inside the plugin and hands back its message, so nothing unwinds
// across the library boundary.
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
// It exports a second, optional entry, graft_fused_plan_<SYMBOL>, with its own
// small versioned descriptor; the transform's descriptor is unchanged, so
// plugins built without it load as before and always run unfused.
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

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <graft/transform.hpp>

namespace graft {

// Bump when graft_transform_descriptor or graft_transform_input changes shape.
inline constexpr std::uint32_t kGraftPluginAbiVersion = 1;
// "GRAFTXFM" in ASCII: tells a descriptor apart from whatever else a symbol points to.
inline constexpr std::uint64_t kGraftPluginMagic = 0x475241465458464dULL;
// The prefix of every entry symbol: GRAFT_REGISTER_TRANSFORM(x, f) exports graft_transform_x.
inline constexpr const char* kGraftTransformEntryPrefix = "graft_transform_";

// Runs the transform on in, storing the candidate in *out. Returns 0 on
// success; otherwise nonzero with a NUL-terminated message in error_buffer
// (truncated to error_capacity). Never throws.
using graft_transform_call = int (*)(const graft_transform_input* in, at::Tensor* out,
                                     char* error_buffer, std::size_t error_capacity);

// Layout rule: magic and abi_version stay first in every ABI version, so the
// loader can read them before trusting the rest.
struct graft_transform_descriptor {
  std::uint64_t magic;
  std::uint32_t abi_version;
  const char* torch_version;  // TORCH_VERSION of the plugin's build
  const char* name;           // the SYMBOL it was registered under
  graft_transform_call call;
};

using graft_transform_entry = const graft_transform_descriptor* (*)();

// The fused-plan entry (optional, beside a transform's entry). Bump its
// version when graft_fused_plan_descriptor or graft_plugin_fused_plan changes;
// the loader ignores a plan entry of another version (the transform then runs
// unfused, with the same results).
inline constexpr std::uint32_t kGraftFusedPlanAbiVersion = 1;
// "GRAFTPLN" in ASCII.
inline constexpr std::uint64_t kGraftFusedPlanMagic = 0x4752414654504c4eULL;
inline constexpr const char* kGraftFusedPlanEntryPrefix = "graft_fused_plan_";

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

struct graft_fused_plan_descriptor {
  std::uint64_t magic;
  std::uint32_t abi_version;
  graft_fused_plan_call plan;
};

using graft_fused_plan_entry = const graft_fused_plan_descriptor* (*)();

namespace detail {

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

}  // namespace detail
}  // namespace graft

// GRAFT_REGISTER_TRANSFORM(symbol, function): exports transform `symbol`, where
// function is `at::Tensor function(const graft::graft_transform_input&)`.
// Use once per symbol, at namespace scope, in exactly one source file.
#define GRAFT_REGISTER_TRANSFORM(symbol, function)                                           \
  extern "C" __attribute__((visibility("default"))) const ::graft::graft_transform_descriptor* \
      graft_transform_##symbol() {                                                           \
    static const ::graft::graft_transform_descriptor descriptor{                             \
        ::graft::kGraftPluginMagic, ::graft::kGraftPluginAbiVersion, TORCH_VERSION, #symbol,  \
        +[](const ::graft::graft_transform_input* in, at::Tensor* out, char* error_buffer,    \
            std::size_t error_capacity) -> int {                                             \
          return ::graft::detail::call_guarded(function, in, out, error_buffer,              \
                                               error_capacity);                              \
        }};                                                                                  \
    return &descriptor;                                                                      \
  }

// GRAFT_REGISTER_FUSED_TRANSFORM(symbol, function, plan_function): as
// GRAFT_REGISTER_TRANSFORM, plus the fused-plan entry graft_fused_plan_symbol,
// where plan_function is
// `std::optional<graft::fused_plan> plan_function(const graft::graft_transform_input&)`.
// The plan must describe exactly what function returns for that call.
#define GRAFT_REGISTER_FUSED_TRANSFORM(symbol, function, plan_function)                          \
  GRAFT_REGISTER_TRANSFORM(symbol, function)                                                     \
  extern "C" __attribute__((visibility("default"))) const ::graft::graft_fused_plan_descriptor* \
      graft_fused_plan_##symbol() {                                                              \
    static const ::graft::graft_fused_plan_descriptor descriptor{                                \
        ::graft::kGraftFusedPlanMagic, ::graft::kGraftFusedPlanAbiVersion,                       \
        +[](const ::graft::graft_transform_input* in, ::graft::graft_plugin_fused_plan* plan)    \
            -> int { return ::graft::detail::plan_guarded(plan_function, in, plan); }};          \
    return &descriptor;                                                                          \
  }
