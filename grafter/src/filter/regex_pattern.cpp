#include "filter/regex_pattern.hpp"

namespace graft::detail {

std::unique_ptr<const re2::RE2> compile_pattern(const filter_source& source, std::size_t offset,
                                                const std::string& pattern,
                                                std::string_view function) {
  re2::RE2::Options options;
  options.set_log_errors(false);  // the error goes into our message, not to stderr
  auto compiled = std::make_unique<const re2::RE2>(pattern, options);
  if (!compiled->ok()) {
    throw_filter_error(source, offset,
                       "invalid regular expression '" + pattern + "' in " + std::string(function) +
                           "(): " + compiled->error() +
                           " (RE2 syntax: no backreferences or lookaround)");
  }
  return compiled;
}

}  // namespace graft::detail
