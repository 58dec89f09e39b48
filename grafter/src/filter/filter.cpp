#include <graft/filter.hpp>
#include <utility>

#include "filter/evaluator.hpp"
#include "filter/parser.hpp"

namespace graft {

struct filter::program {
  std::string expression;
  detail::compiled_filter code;
};

filter filter::compile(std::string_view expression, std::string_view field) {
  detail::compiled_filter code = detail::parse_filter(detail::filter_source{field, expression});
  return filter(std::make_unique<const program>(program{std::string(expression), std::move(code)}));
}

filter::filter(std::unique_ptr<const program> compiled) : program_(std::move(compiled)) {}
filter::filter(filter&&) noexcept = default;
filter& filter::operator=(filter&&) noexcept = default;
filter::~filter() = default;

bool filter::matches(const tags& t) const noexcept {
  // A moved-from filter matches nothing rather than crashing the host.
  return program_ != nullptr && detail::evaluate(program_->code, t);
}

const std::string& filter::expression() const {
  static const std::string kMovedFrom;
  return program_ != nullptr ? program_->expression : kMovedFrom;
}

}  // namespace graft
