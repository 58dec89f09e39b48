#pragma once
// Where a spec's LIBRARY is looked for (see graft/transform_loader.hpp).

#include <memory>
#include <string>
#include <string_view>

#include "plugin/library/shared_library.hpp"

namespace graft::detail {

// Opens library: a path when it holds a '/', else the first GRAFT_PLUGIN_PATH
// directory holding that file, else dlopen's own search. Throws
// plugin_load_error(library_not_found) with dlerror()'s text and the places
// searched, after context ("transform spec 'x.so:f'") and ": ".
std::unique_ptr<shared_library> open_transform_library(const std::string& library,
                                                       std::string_view context);

}  // namespace graft::detail
