#pragma once
// Turning a transform spec into a transform.
//
// Spec syntax:
//   builtin:NAME[:KEY=VALUE[,KEY=VALUE...]]   a built-in transform
//       builtin:identity_by_rank
//       builtin:reshard            builtin:reshard:dim=1
//   LIBRARY:SYMBOL                            a transform from a plugin library
//       /abs/or/rel/path/libmy_transforms.so:double_it
//       libmy_transforms.so:double_it
//     (SYMBOL: the name the transform is registered under in the library's
//     registry, see graft/plugin.hpp)
//   pkg.module.symbol                         a Python callable (the reference's form)
//       my_transforms.double_it
//
// LIBRARY:SYMBOL is split at the LAST ':' (SYMBOL is a C identifier and never
// holds one; a path might). The library part "builtin" is reserved: name a file
// called builtin as ./builtin. A LIBRARY with a '/' is opened as that path. A
// bare file name is looked for in each directory of GRAFT_PLUGIN_PATH
// (colon-separated) first, then handed to dlopen as is (LD_LIBRARY_PATH, the
// ld.so cache, the system directories).
//
// Thread safety: load_transform may be called from any thread. The returned
// transform keeps its library loaded for as long as any copy of it lives; a
// process-wide cache maps each (library file, symbol) to one loaded instance,
// so loading the same spec twice opens the library once. Calling the returned
// fn is as thread-safe as the plugin's function.

#include <optional>
#include <string>
#include <string_view>

#include <graft/plugin_load_error.hpp>
#include <graft/transform.hpp>

namespace graft {

// A message describing what is wrong with the spec's syntax, or nullopt if it
// is well formed. Checks syntax only (no file access), for config validation.
std::optional<std::string> spec_problem(std::string_view spec);

// Whether the spec is pkg.module.symbol, a Python transform: well formed, but
// only the Python package (import graft) loads it; load_transform refuses it.
bool is_python_transform_spec(std::string_view spec);

// The transform the spec names. Throws plugin_load_error. The returned fn
// throws transform_error when the plugin reports an error or returns no tensor.
transform load_transform(std::string_view spec);

}  // namespace graft
