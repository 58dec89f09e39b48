// Compile errors: each names the field, the problem and the column, and shows
// the expression with a caret under the character at fault.

#include <gtest/gtest.h>

#include <graft/error.hpp>
#include <graft/filter.hpp>
#include <string>

namespace graft {
namespace {

// The message of the filter_error that compiling expression throws.
std::string error_of(std::string_view expression, std::string_view field = "b2t_filter") {
  try {
    filter::compile(expression, field);
  } catch (const filter_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "compiled without error: " << expression;
  return {};
}

TEST(FilterErrors, CaretUnderUnexpectedParen) {
  EXPECT_EQ(error_of(R"(name == "x"))"),
            "b2t_filter: unexpected ')' at column 12\n"
            "  name == \"x\")\n"
            "             ^");
}

TEST(FilterErrors, MissingOperandPointsAtTheEnd) {
  EXPECT_EQ(error_of("name == "),
            "b2t_filter: unexpected end of expression, expected a value at column 8\n"
            "  name == \n"
            "         ^");
  // Trailing whitespace and comments do not move it to a later line.
  EXPECT_EQ(error_of("name ==\n  # the end\n"),
            "b2t_filter: unexpected end of expression, expected a value at line 1, column 8\n"
            "  name ==\n"
            "         ^");
}

TEST(FilterErrors, FieldNameComesFromCompile) {
  EXPECT_EQ(error_of("name ==", "t2b_filter").rfind("t2b_filter: ", 0), 0u);
  EXPECT_EQ(error_of("name ==", "filter").rfind("filter: ", 0), 0u);
}

TEST(FilterErrors, UnknownFunctionIsNamed) {
  EXPECT_EQ(error_of("totally_undefined_helper(name)"),
            "b2t_filter: unknown function 'totally_undefined_helper'; filters offer "
            "search(pattern, value) and match(pattern, value) at column 1\n"
            "  totally_undefined_helper(name)\n"
            "  ^");
  EXPECT_NE(error_of("len(name) > 3").find("unknown function 'len'"), std::string::npos);
}

TEST(FilterErrors, AssignmentSuggestsComparisonOrIn) {
  const std::string message = error_of("layer_id=[0-3]");
  EXPECT_NE(message.find("'=' is not an operator"), std::string::npos) << message;
  EXPECT_NE(message.find("'=='"), std::string::npos) << message;
  EXPECT_NE(message.find("'in'"), std::string::npos) << message;
  EXPECT_NE(message.find("at column 9\n  layer_id=[0-3]\n          ^"), std::string::npos)
      << message;
}

TEST(FilterErrors, WrongArity) {
  EXPECT_NE(error_of("search('a')").find("search() takes 2 arguments (pattern, value), got 1"),
            std::string::npos);
  EXPECT_NE(error_of("match('a', name, 2)").find("match() takes 2 arguments"), std::string::npos);
  EXPECT_NE(error_of("search(pattern='a', string=name)").find("keyword arguments"),
            std::string::npos);
}

TEST(FilterErrors, PatternMustBeALiteral) {
  const std::string message = error_of("search(pattern, name)");
  EXPECT_NE(message.find("the pattern of search() must be a string literal"), std::string::npos)
      << message;
  EXPECT_NE(message.find("at column 8"), std::string::npos) << message;
}

TEST(FilterErrors, MalformedRegexCarriesRe2Reason) {
  const std::string message = error_of("search('(', name)");
  EXPECT_NE(message.find("invalid regular expression '(' in search(): missing )"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("at column 8\n  search('(', name)\n         ^"), std::string::npos)
      << message;
  EXPECT_NE(error_of(R"(match(r'(?<=a)b', name))").find("invalid regular expression"),
            std::string::npos);
}

TEST(FilterErrors, UnterminatedString) {
  EXPECT_EQ(error_of("name == 'x"),
            "b2t_filter: unterminated string at column 9\n"
            "  name == 'x\n"
            "          ^");
  EXPECT_NE(error_of(R"(name == r'x\')").find("unterminated string"), std::string::npos);
  EXPECT_NE(error_of("name == '''x''").find("unterminated triple-quoted string"),
            std::string::npos);
}

TEST(FilterErrors, EmptyExpression) {
  EXPECT_NE(error_of("").find("b2t_filter: empty expression"), std::string::npos);
  EXPECT_NE(error_of("   # only a comment").find("empty expression"), std::string::npos);
}

TEST(FilterErrors, UnclosedGroupPointsAtItsOpening) {
  EXPECT_EQ(error_of("(name == 'x'"),
            "b2t_filter: '(' is never closed at column 1\n"
            "  (name == 'x'\n"
            "  ^");
  EXPECT_NE(error_of("name in ['a', 'b'").find("'[' is never closed at column 9"),
            std::string::npos);
}

TEST(FilterErrors, MissingOperator) {
  EXPECT_EQ(error_of("name 'x'"),
            "b2t_filter: unexpected string 'x' at column 6\n"
            "  name 'x'\n"
            "       ^");
}

TEST(FilterErrors, ForeignOperatorsSuggestPython) {
  EXPECT_NE(error_of("a && b").find("'&' is not an operator here; write 'and'"), std::string::npos);
  EXPECT_NE(error_of("a || b").find("write 'or'"), std::string::npos);
  EXPECT_NE(error_of("!a").find("write 'not'"), std::string::npos);
}

TEST(FilterErrors, LanguageLimits) {
  EXPECT_NE(error_of("layer_id is 3").find("'is' compares only with None, True or False"),
            std::string::npos);
  EXPECT_NE(error_of("name == ('a', 'b')").find("a tuple is allowed only after 'in'"),
            std::string::npos);
  EXPECT_NE(error_of("[1] == x").find("a list is allowed only after 'in'"), std::string::npos);
  EXPECT_NE(error_of("search").find("'search' is a function"), std::string::npos);
  EXPECT_NE(error_of("-'a' == x").find("'-' applies to numbers only"), std::string::npos);
  EXPECT_NE(error_of("name.startswith('a')").find("unexpected character '.'"), std::string::npos);
  EXPECT_NE(error_of("layer_id + 1 > 2").find("unexpected character '+'"), std::string::npos);
  EXPECT_NE(error_of("f'x{name}'").find("string prefix 'f' is not supported"), std::string::npos);
  EXPECT_NE(error_of("x == 007").find("leading zeros"), std::string::npos);
  EXPECT_NE(error_of("x == 3abc").find("invalid number literal"), std::string::npos);
  EXPECT_NE(error_of("x == 99999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("x == 9223372036854775808").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("x == -(9223372036854775808)").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("x == -18446744073709551616").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("x in ((0, 1), 2)").find("cannot be an element of another"),
            std::string::npos);
  EXPECT_NE(error_of("x in ((0, 1) or y)").find("cannot be an operand of 'or'"), std::string::npos);
  EXPECT_NE(error_of("x in ([0] and y)").find("cannot be an operand of 'and'"), std::string::npos);
  EXPECT_NE(error_of("x in ((0, 1) == y)").find("cannot be compared further"), std::string::npos);
  EXPECT_NE(error_of("x in (not (0, 1))").find("a tuple is allowed only after 'in'"),
            std::string::npos);
  EXPECT_NE(error_of(R"(x == '\x4')").find("truncated \\x escape"), std::string::npos);
}

TEST(FilterErrors, DeepNestingIsRejectedNotOverflowed) {
  EXPECT_NE(error_of(std::string(10000, '(')).find("nests deeper than 200 levels"),
            std::string::npos);
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "not ";
  EXPECT_NE(error_of(nots + "x").find("nests deeper"), std::string::npos);
  EXPECT_NE(error_of(std::string(100000, '-') + "1").find("nests deeper"), std::string::npos);
  // 150 levels are fine, and so is a long flat chain (it is one n-ary node).
  EXPECT_TRUE(
      filter::compile(std::string(150, '(') + "x" + std::string(150, ')')).matches({{"x", 1}}));
  std::string chain = "x == 0";
  for (int i = 1; i < 50000; ++i) chain += " or x == " + std::to_string(i);
  EXPECT_TRUE(filter::compile(chain).matches({{"x", 49999}}));
}

TEST(FilterErrors, ColumnsCountCharactersAndLines) {
  // 'é' is two bytes but one column.
  EXPECT_NE(error_of("name == 'é' )").find("at column 13"), std::string::npos);
  EXPECT_NE(error_of("name == 'x'\nand )").find("at line 2, column 5\n  and )\n      ^"),
            std::string::npos);
  EXPECT_NE(error_of("\tname == )").find("at column 10\n  \tname == )\n  \t        ^"),
            std::string::npos);
}

TEST(FilterErrors, ControlCharactersDoNotCutTheMessage) {
  // A NUL would end what(); the echoed line shows '?' in its place.
  const std::string with_nul("name == \0x", 10);
  EXPECT_EQ(error_of(with_nul),
            "b2t_filter: unexpected character \\x00 at column 9\n"
            "  name == ?x\n"
            "          ^");
  EXPECT_NE(error_of("'a\rb' )").find("  'a?b' )\n"), std::string::npos);
}

TEST(FilterErrors, IsAConfigError) {
  EXPECT_THROW(filter::compile("name =="), config_error);
  EXPECT_THROW(filter::compile("name =="), graft::error);
}

}  // namespace
}  // namespace graft
