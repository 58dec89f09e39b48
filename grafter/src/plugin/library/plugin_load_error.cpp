#include <graft/plugin_load_error.hpp>

namespace graft {

std::string_view to_string(plugin_load_error_kind k) {
  switch (k) {
    case plugin_load_error_kind::malformed_spec:
      return "malformed_spec";
    case plugin_load_error_kind::library_not_found:
      return "library_not_found";
    case plugin_load_error_kind::symbol_not_found:
      return "symbol_not_found";
    case plugin_load_error_kind::not_a_transform:
      return "not_a_transform";
    case plugin_load_error_kind::abi_mismatch:
      return "abi_mismatch";
  }
  return "unknown";
}

}  // namespace graft
