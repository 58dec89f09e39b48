#pragma once
// Why a transform plugin could not be opened or used. Needs no libtorch, so
// that tools which only read a plugin's registry (graft plugins) share the
// loader's errors.

#include <string>
#include <string_view>

#include <graft/error.hpp>

namespace graft {

// The ways a spec or a plugin library can fail to give a transform.
enum class plugin_load_error_kind {
  malformed_spec,     // no ':', an empty part, a bad SYMBOL, an unknown built-in or option
  library_not_found,  // dlopen failed for every place searched (or the file is no library)
  symbol_not_found,   // the library's registry has no SYMBOL, nor does the library export one
  not_a_transform,    // no graft plugin (no or a malformed registry), or SYMBOL exported but not registered
  abi_mismatch,       // built for another plugin ABI (ABI 1 included) or libtorch (major.minor)
};

// kind() tells the cases apart; what() names the offending part and the fix.
class plugin_load_error : public plugin_error {
 public:
  plugin_load_error(plugin_load_error_kind kind, const std::string& message)
      : plugin_error(message), kind_(kind) {}
  plugin_load_error_kind kind() const noexcept { return kind_; }

 private:
  plugin_load_error_kind kind_;
};

std::string_view to_string(plugin_load_error_kind kind);

// The environment variable holding extra plugin directories.
inline constexpr const char* kGraftPluginPathEnv = "GRAFT_PLUGIN_PATH";

}  // namespace graft
