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

// The transform's fused-plan descriptor, or nullptr when the library has no
// plan entry for symbol or one of another plan ABI version (the transform
// then runs unfused; see GRAFT_REGISTER_FUSED_TRANSFORM).
const graft_fused_plan_descriptor* find_fused_plan_descriptor(const shared_library& library,
                                                              const std::string& symbol);

}  // namespace graft::detail
