// The filter language (graft/filter.hpp) on arbitrary bytes: every input
// either compiles, and then evaluates the same way twice on a few tag sets
// (matches() is noexcept: a throw there terminates), or throws filter_error
// with a well-formed message, "FIELD: PROBLEM at [line L, ]column C", the line
// at fault and a caret under column C. Anything else is a finding.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <graft/error.hpp>
#include <graft/filter.hpp>

#include "fuzz_checks.hpp"

namespace {

using graft::fuzz::finding;

// As in grafter/tests/filter/filter_fuzz_test.cpp: every kind of tag value,
// missing tags, NaN and the extreme integers.
const std::vector<graft::tags>& tag_sets() {
  static const std::vector<graft::tags> sets = {
      {},
      {{"name", "attn_output"}, {"layer_id", 1}},
      {{"name", "x"}, {"layer_id", 2.5}, {"graft_phase", "prefill"}, {"flag", true}},
      {{"name", ""}, {"layer_id", std::numeric_limits<double>::quiet_NaN()}, {"flag", nullptr}},
      {{"name", 7}, {"layer_id", std::numeric_limits<long long>::min()}},
      {{"name", "layer_input"}, {"layer_id", std::numeric_limits<long long>::max()}, {"scale", -0.0}},
  };
  return sets;
}

void check_message(const std::string& message, std::string_view input) {
  const auto bad = [&](const char* what) { finding(std::string("filter_error message ") + what, message); };
  if (message.rfind("fuzz: ", 0) != 0) bad("does not start with the field \"fuzz: \"");
  if (std::count(message.begin(), message.end(), '\n') != 2) bad("is not three lines");
  if (message.back() != '^') bad("does not end in the caret");
  const std::size_t first_break = message.find('\n');
  const std::size_t column_at = message.rfind(" column ", first_break);
  if (column_at == std::string::npos) bad("names no column");
  const std::string digits = message.substr(column_at + 8, first_break - column_at - 8);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
    bad("has no column number before its first line break");
  }
  // The caret line is "  " and one character per code point before the
  // caret: the caret must stand under the column the message names.
  const std::size_t caret_line = message.rfind('\n') + 1;
  const std::size_t caret_column = message.size() - caret_line - 2;
  if (message.compare(caret_line, 2, "  ") != 0 || caret_column != std::stoul(digits)) {
    bad("puts its caret elsewhere than the column it names");
  }
  if (message.size() > 4 * input.size() + 4096) bad("is out of all proportion to the input");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const graft::filter f = graft::filter::compile(text, "fuzz");
    if (f.expression() != text) finding("expression() differs from the text compiled", f.expression());
    // The input itself as a tag value: the regular expressions it compiled
    // then run on text they were not written for.
    const graft::tags own{
        {"name", std::string(text)}, {"layer_id", static_cast<long long>(size)}, {"graft_phase", text}};
    if (f.matches(own) != f.matches(own)) finding("nondeterministic match", own.to_display_string());
    for (const graft::tags& t : tag_sets()) {
      if (f.matches(t) != f.matches(t)) finding("nondeterministic match", t.to_display_string());
    }
    // A moved-from filter matches nothing rather than crashing.
    graft::filter moved = graft::filter::compile("True");
    moved = graft::filter::compile(text, "fuzz");
    const graft::filter taken = std::move(moved);
    if (moved.matches(own)) finding("a moved-from filter matched", text);  // NOLINT(bugprone-use-after-move)
    if (taken.matches(own) != f.matches(own)) finding("two compilations of one text disagree", text);
  } catch (const graft::filter_error& e) {
    check_message(e.what(), text);
  } catch (const std::exception& e) {
    graft::fuzz::unexpected_exception(e);
  }
  return 0;
}
