#pragma once
// The parsed form of a transform spec (syntax: see graft/transform_loader.hpp).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <graft/transform.hpp>

namespace graft::detail {

inline constexpr std::string_view kBuiltinLibrary = "builtin";

struct transform_spec {
  std::string text;  // the spec as written
  bool builtin = false;
  bool python = false;  // pkg.module.symbol: loaded by the Python package only
  std::string library;  // plugins only
  std::string symbol;   // the plugin SYMBOL or the built-in NAME
  std::vector<std::pair<std::string, std::string>> options;  // built-ins only, in spec order
};

// pkg.module.symbol: dot-separated identifiers and no ':' (a library's file
// name such as libx.so, which only lacks its :SYMBOL, is not one).
bool is_python_spec(std::string_view spec);

// Throws plugin_load_error(malformed_spec) naming the bad part and the fix.
transform_spec parse_transform_spec(std::string_view spec);

// The built-in the spec names, with its options applied. Throws
// plugin_load_error(malformed_spec) for an unknown name or option.
transform make_builtin_transform(const transform_spec& spec);

}  // namespace graft::detail
