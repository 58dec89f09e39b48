// builtin:NAME[:options] -> the built-in transform, options applied.

#include <cstdint>
#include <optional>
#include <string>

#include <graft/builtin_transforms.hpp>
#include <graft/transform_loader.hpp>

#include "plugin/transform_spec.hpp"

namespace graft::detail {
namespace {

[[noreturn]] void malformed(const transform_spec& spec, const std::string& problem) {
  throw plugin_load_error(plugin_load_error_kind::malformed_spec,
                          "transform spec '" + spec.text + "': " + problem);
}

std::int64_t parse_dim(const transform_spec& spec, const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    malformed(spec, "dim='" + text + "' is not an integer; write e.g. builtin:reshard:dim=1");
  }
  return value;
}

}  // namespace

transform make_builtin_transform(const transform_spec& spec) {
  if (spec.symbol == "identity_by_rank") {
    if (!spec.options.empty()) {
      malformed(spec, "takes no options but got '" + spec.options.front().first +
                          "'; write builtin:identity_by_rank");
    }
    return identity_by_rank();
  }
  if (spec.symbol == "reshard") {
    std::optional<std::int64_t> dim;
    for (const auto& [key, value] : spec.options) {
      if (key != "dim") malformed(spec, "unknown option '" + key + "'; the only option is dim=D");
      dim = parse_dim(spec, value);
    }
    return reshard(dim);
  }
  malformed(spec, "unknown built-in '" + spec.symbol +
                      "'; the built-ins are identity_by_rank and reshard");
}

}  // namespace graft::detail
