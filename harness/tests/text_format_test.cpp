#include <graft/harness/text_format.hpp>

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace graft::harness {
namespace {

TEST(text_format, EscapesWhatXmlReservesForTextAndBothQuotes) {
  EXPECT_EQ(escape_xml("a < b && c > \"d\" 'e'"), "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &#39;e&#39;");
  EXPECT_EQ(escape_xml("tab\tline\nreturn\r"), "tab\tline\nreturn\r");
  EXPECT_EQ(escape_xml("µ Δ"), "µ Δ");  // UTF-8 passes as it is
}

TEST(text_format, ReplacesControlCharactersXmlCannotHold) {
  EXPECT_EQ(escape_xml(std::string("a\x01" "b\x1b", 4)), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
  EXPECT_EQ(escape_xml(std::string("\0", 1)), "\xEF\xBF\xBD");
}

TEST(text_format, FixedIsPrintfF) {
  EXPECT_EQ(format_fixed(12.25, 1), "12.2");  // printf's rounding, binary 12.25 ties to even
  EXPECT_EQ(format_fixed(-0.04, 1), "-0.0");
  EXPECT_EQ(format_fixed(960, 1), "960.0");
  EXPECT_EQ(format_fixed(1e300, 0).size(), 301u);  // not truncated
}

TEST(text_format, SignificantIsPrintfGWithSpecialsSpelled) {
  EXPECT_EQ(format_significant(0.000123456), "0.000123");
  EXPECT_EQ(format_significant(1500), "1.5e+03");
  EXPECT_EQ(format_significant(1e-6), "1e-06");
  EXPECT_EQ(format_significant(2.5, 2), "2.5");
  EXPECT_EQ(format_significant(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_significant(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_significant(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_significant(-std::numeric_limits<double>::infinity()), "-inf");
}

}  // namespace
}  // namespace graft::harness
