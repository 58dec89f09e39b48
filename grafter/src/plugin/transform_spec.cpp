#include "plugin/transform_spec.hpp"

#include <cctype>
#include <string>

#include <graft/transform_loader.hpp>

namespace graft::detail {
namespace {

constexpr const char* kSyntax =
    "write LIBRARY:SYMBOL (e.g. libmy_transforms.so:double_it) or builtin:NAME[:KEY=VALUE,...] "
    "(builtin:identity_by_rank, builtin:reshard, builtin:reshard:dim=1), or from Python pkg.module.symbol";

[[noreturn]] void malformed(std::string_view spec, const std::string& problem) {
  throw plugin_load_error(
      plugin_load_error_kind::malformed_spec,
      "transform spec '" + std::string(spec) + "': " + problem + "; " + kSyntax);
}

bool is_c_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// KEY=VALUE[,KEY=VALUE...]
std::vector<std::pair<std::string, std::string>> parse_options(std::string_view spec,
                                                               std::string_view text) {
  std::vector<std::pair<std::string, std::string>> options;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      malformed(spec, "option '" + std::string(item) + "' is not KEY=VALUE");
    }
    options.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) return options;
    text.remove_prefix(comma + 1);
  }
}

// A library's file name ("libx.so", "libx.so.1") that lacks its ":SYMBOL".
bool names_a_library_file(std::string_view spec) {
  const std::size_t so = spec.rfind(".so");
  return so != std::string_view::npos &&
         (so + 3 == spec.size() || spec[so + 3] == '.');
}

}  // namespace

bool is_python_spec(std::string_view spec) {
  if (spec.find('.') == std::string_view::npos || names_a_library_file(spec)) return false;
  while (true) {
    const std::size_t dot = spec.find('.');
    if (!is_c_identifier(spec.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    spec.remove_prefix(dot + 1);
  }
}

transform_spec parse_transform_spec(std::string_view spec) {
  transform_spec out;
  out.text = std::string(spec);
  if (is_python_spec(spec)) {
    out.python = true;
    out.symbol = std::string(spec);
    return out;
  }
  const std::size_t first = spec.find(':');
  if (first == std::string_view::npos) {
    malformed(spec, "no ':' separating LIBRARY and SYMBOL (missing LIBRARY: prefix), and no "
                    "pkg.module.symbol either (missing dotted prefix)");
  }
  if (spec.substr(0, first) == kBuiltinLibrary) {
    out.builtin = true;
    const std::string_view rest = spec.substr(first + 1);
    const std::size_t colon = rest.find(':');
    out.symbol = std::string(rest.substr(0, colon));
    if (out.symbol.empty()) malformed(spec, "empty built-in NAME after 'builtin:'");
    if (colon != std::string_view::npos) out.options = parse_options(spec, rest.substr(colon + 1));
    return out;
  }
  // SYMBOL is a C identifier and never holds a ':'; a path might.
  const std::size_t last = spec.rfind(':');
  out.library = std::string(spec.substr(0, last));
  out.symbol = std::string(spec.substr(last + 1));
  if (out.library.empty()) malformed(spec, "empty LIBRARY before ':'");
  if (out.symbol.empty()) malformed(spec, "empty SYMBOL after ':'");
  if (!is_c_identifier(out.symbol)) {
    malformed(spec, "SYMBOL '" + out.symbol + "' is not a C identifier (letters, digits, '_')");
  }
  return out;
}

}  // namespace graft::detail
