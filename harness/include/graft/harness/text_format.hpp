#pragma once
// How graft's reports spell text and numbers, in one place, so that the bench
// chart, the localize plot, the snapshot diff and the report page agree: XML
// escaping for SVG and HTML, and the two number styles. Plain functions of
// their arguments, with no libtorch, so that any tool can link them.

#include <string>
#include <string_view>

namespace graft::harness {

// text with & < > " ' as entities, fit for SVG or HTML text and for an
// attribute in either quote. A control character that XML cannot hold (below
// 0x20, other than tab, newline and carriage return) becomes U+FFFD, so that
// the page stays well-formed whatever a message carries.
std::string escape_xml(std::string_view text);

// printf("%.*f", decimals, v): "12.5" for (12.5, 1); coordinates in an SVG.
std::string format_fixed(double v, int decimals);

// printf("%.*g", digits, v), with nan, inf and -inf spelled so on every libc:
// "0.000123", "1.5e+03". Tolerances, rel_diffs and diff figures.
std::string format_significant(double v, int digits = 3);

}  // namespace graft::harness
