#pragma once
// Finding and vetting a transform's descriptor inside an opened library.

#include <string>
#include <string_view>

#include <graft/plugin.hpp>

#include "plugin/shared_library.hpp"

namespace graft::detail {

// The descriptor registered as symbol in library, checked for magic, plugin
// ABI and libtorch version. Throws plugin_load_error (symbol_not_found,
// not_a_transform, abi_mismatch) naming the library, the symbol and the fix.
const graft_transform_descriptor* find_transform_descriptor(const shared_library& library,
                                                            const std::string& symbol,
                                                            std::string_view spec);

}  // namespace graft::detail
