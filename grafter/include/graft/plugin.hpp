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
// Tensors cross as at::Tensor, so a plugin must be built against the same
// libtorch (major.minor) as the grafter; the loader checks it. (DLPack would
// lift that constraint at the cost of a C-only API for transform authors.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>

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
