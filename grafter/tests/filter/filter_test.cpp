// The filter language on the forms users write for the reference grafter
// (reference catalog §5.2 and TestGrafterFilterMatching, §1.4) and on the
// semantics that differ from Python's on purpose.

#include <gtest/gtest.h>

#include <cstdint>
#include <graft/error.hpp>
#include <graft/filter.hpp>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace graft {
namespace {

bool matches(std::string_view expression, const tags& t) {
  return filter::compile(expression).matches(t);
}

TEST(FilterReferenceForms, NameEquals) {
  EXPECT_TRUE(matches("name == 'x'", {{"name", "x"}}));
  EXPECT_FALSE(matches("name == 'x'", {{"name", "y"}}));
  EXPECT_FALSE(matches("name == 'x'", {}));
}

TEST(FilterReferenceForms, NameAndLayerBelowThree) {
  const filter f = filter::compile("name == 'x' and layer_id < 3");
  EXPECT_TRUE(f.matches({{"name", "x"}, {"layer_id", 1}}));
  EXPECT_FALSE(f.matches({{"name", "x"}, {"layer_id", 5}}));
  EXPECT_FALSE(f.matches({{"name", "y"}, {"layer_id", 1}}));
}

TEST(FilterReferenceForms, OrderingOnAbsentTagIsFalse) {
  // The reference raised TypeError (None < 3) and crashed the dump call; a
  // graft filter reads the absent tag as None and the comparison as false.
  EXPECT_FALSE(matches("layer_id < 3", {{"name", "x"}}));
  EXPECT_FALSE(matches("layer_id >= 3", {{"name", "x"}}));
}

TEST(FilterReferenceForms, UnknownTagIsNone) {
  EXPECT_TRUE(matches("layer_id is None and name == 'x'", {{"name", "x"}}));
  EXPECT_FALSE(matches("layer_id is None and name == 'x'", {{"name", "x"}, {"layer_id", 0}}));
  EXPECT_TRUE(matches("layer_id is not None and layer_id < 3", {{"layer_id", 2}}));
  EXPECT_FALSE(matches("layer_id is not None and layer_id < 3", {{"name", "x"}}));
}

TEST(FilterReferenceForms, SearchIsNotNone) {
  const filter f = filter::compile("search(r'attn.*', name) is not None");
  EXPECT_TRUE(f.matches({{"name", "attn_input"}}));
  EXPECT_FALSE(f.matches({{"name", "other"}}));
  EXPECT_FALSE(f.matches({}));
}

TEST(FilterReferenceForms, MilesLaunchScripts) {
  const filter b2t = filter::compile(
      R"(name in ("layer_input", "attn_output", "mlp_output") and graft_phase == "prefill")");
  EXPECT_TRUE(b2t.matches({{"name", "attn_output"}, {"graft_phase", "prefill"}}));
  EXPECT_FALSE(b2t.matches({{"name", "attn_output"}, {"graft_phase", "decode"}}));
  EXPECT_FALSE(b2t.matches({{"name", "hc_attn_pre"}, {"graft_phase", "prefill"}}));

  const filter e4 = filter::compile(R"(name == "mlp_output" and graft_phase == "prefill")");
  EXPECT_TRUE(e4.matches({{"name", "mlp_output"}, {"graft_phase", "prefill"}}));
  EXPECT_FALSE(e4.matches({{"name", "mlp_output"}}));

  const filter never = filter::compile("False");
  EXPECT_FALSE(never.matches({{"name", "layer_input"}, {"graft_phase", "prefill"}}));
  EXPECT_TRUE(matches("True", {}));
}

TEST(FilterReferenceForms, DumperLayerFilter) {
  const filter f = filter::compile("layer_id is None or layer_id < 3 or layer_id == 24");
  EXPECT_TRUE(f.matches({{"name", "embed"}}));
  EXPECT_TRUE(f.matches({{"layer_id", 2}}));
  EXPECT_FALSE(f.matches({{"layer_id", 3}}));
  EXPECT_TRUE(f.matches({{"layer_id", 24}}));
}

TEST(FilterReferenceForms, DocumentedForms) {
  const filter in_list = filter::compile("layer_id in [0,1,2,3]");
  EXPECT_TRUE(in_list.matches({{"layer_id", 3}}));
  EXPECT_FALSE(in_list.matches({{"layer_id", 4}}));
  EXPECT_FALSE(in_list.matches({}));

  const filter hidden = filter::compile(R"(search("hidden", name) and layer_id == 0)");
  EXPECT_TRUE(hidden.matches({{"name", "last_hidden_states"}, {"layer_id", 0}}));
  EXPECT_FALSE(hidden.matches({{"name", "last_hidden_states"}, {"layer_id", 1}}));
  EXPECT_FALSE(hidden.matches({{"name", "logits"}, {"layer_id", 0}}));
}

TEST(FilterMembership, NotInAndSingleElementTuple) {
  EXPECT_TRUE(matches("name not in ('a', 'b')", {{"name", "c"}}));
  EXPECT_FALSE(matches("name not in ('a', 'b')", {{"name", "a"}}));
  EXPECT_TRUE(matches("name in ('a',)", {{"name", "a"}}));
  EXPECT_FALSE(matches("name in ('a',)", {{"name", "ab"}}));
  EXPECT_FALSE(matches("name in ()", {{"name", "a"}}));
  EXPECT_TRUE(matches("name in ['a', 'b',]", {{"name", "b"}}));
}

TEST(FilterMembership, RedundantParenthesesAroundTheSet) {
  EXPECT_TRUE(matches("layer_id in ((0, 1))", {{"layer_id", 1}}));
  EXPECT_TRUE(matches("layer_id in (([0, 1]))", {{"layer_id", 0}}));
  EXPECT_TRUE(matches("layer_id not in ((0, 1))", {{"layer_id", 2}}));
  EXPECT_FALSE(matches("layer_id in ((0, 1))", {{"layer_id", 2}}));
}

TEST(FilterMembership, ParenthesizedStringIsSubstringTest) {
  // ('layer_input') is a string, not a tuple: Python tests for a substring.
  EXPECT_TRUE(matches("name in ('layer_input')", {{"name", "input"}}));
  EXPECT_TRUE(matches("'attn' in name", {{"name", "self_attn_out"}}));
  EXPECT_FALSE(matches("'attn' in name", {{"name", "mlp"}}));
  EXPECT_FALSE(matches("3 in name", {{"name", "3"}}));  // Python: TypeError
}

TEST(FilterMembership, ElementsMayBeTags) {
  EXPECT_TRUE(matches("name in (expected, 'other')", {{"name", "x"}, {"expected", "x"}}));
  EXPECT_FALSE(matches("name in (expected, 'other')", {{"name", "x"}}));
}

TEST(FilterComparison, IncompatibleOrderingIsFalse) {
  EXPECT_FALSE(matches("None < 3", {}));
  EXPECT_FALSE(matches("'a' < 3", {}));
  EXPECT_FALSE(matches("'a' >= 3", {}));
  EXPECT_FALSE(matches("name > 0", {{"name", "x"}}));
  EXPECT_FALSE(matches("flag < 2", {{"flag", true}}));
  EXPECT_TRUE(matches("'a' != 3", {}));
}

TEST(FilterComparison, IntsAndFloatsCompareNumerically) {
  EXPECT_TRUE(matches("scale == 2", {{"scale", 2.0}}));
  EXPECT_TRUE(matches("scale < 2.5", {{"scale", 2}}));
  EXPECT_TRUE(matches("layer_id >= 1e0", {{"layer_id", 1}}));
  EXPECT_TRUE(matches("eps == 1e-3", {{"eps", 0.001}}));
  EXPECT_TRUE(matches("offset == -2 and offset > -2.5", {{"offset", -2}}));
  // Exact, not by rounding the int: 2**53 + 1 is above the float 2**53.
  EXPECT_TRUE(matches("big > 9007199254740992.0", {{"big", 9007199254740993LL}}));
  EXPECT_FALSE(matches("big == 9007199254740992.0", {{"big", 9007199254740993LL}}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(matches("x == x", {{"x", nan}}));
  EXPECT_FALSE(matches("x < 1 or x >= 1", {{"x", nan}}));
}

TEST(FilterComparison, BoolIsNotANumber) {
  // Python says True == 1; tags keep bools and ints apart, and so do filters.
  EXPECT_FALSE(matches("flag == 1", {{"flag", true}}));
  EXPECT_TRUE(matches("flag == True", {{"flag", true}}));
  EXPECT_TRUE(matches("flag is True", {{"flag", true}}));
  EXPECT_FALSE(matches("count is True", {{"count", 1}}));
  EXPECT_TRUE(matches("flag is not False", {{"flag", true}}));
}

TEST(FilterComparison, StringsOrderLexicographically) {
  EXPECT_TRUE(matches("name < 'b'", {{"name", "abc"}}));
  EXPECT_FALSE(matches("name < 'abc'", {{"name", "abc"}}));
  EXPECT_TRUE(matches("name <= 'abc'", {{"name", "abc"}}));
  EXPECT_TRUE(matches("'é' > 'z'", {}));  // by code point, as Python
}

TEST(FilterComparison, ChainedAsInPython) {
  const filter f = filter::compile("0 <= layer_id < 3");
  EXPECT_TRUE(f.matches({{"layer_id", 0}}));
  EXPECT_FALSE(f.matches({{"layer_id", 3}}));
  EXPECT_FALSE(f.matches({{"layer_id", -1}}));
  EXPECT_FALSE(f.matches({}));
}

TEST(FilterLogic, PythonPrecedence) {
  // not binds looser than ==, and looser than not, or looser than and.
  EXPECT_TRUE(matches("not a or b", {{"a", false}, {"b", false}}));
  EXPECT_FALSE(matches("not a or b", {{"a", true}, {"b", false}}));
  EXPECT_TRUE(matches("not name == 'x'", {{"name", "y"}}));
  EXPECT_TRUE(matches("a or b and c", {{"a", true}, {"b", false}}));
  EXPECT_FALSE(matches("(a or b) and c", {{"a", true}, {"b", false}}));
  EXPECT_TRUE(matches("not not a", {{"a", 1}}));
}

TEST(FilterLogic, PythonTruthiness) {
  for (const tag_value& v :
       {tag_value(), tag_value(false), tag_value(0), tag_value(0.0), tag_value("")}) {
    EXPECT_FALSE(matches("v", {{"v", v}})) << to_display_string(v);
    EXPECT_TRUE(matches("not v", {{"v", v}})) << to_display_string(v);
  }
  for (const tag_value& v : {tag_value(true), tag_value(-1), tag_value(0.5), tag_value("0")}) {
    EXPECT_TRUE(matches("v", {{"v", v}})) << to_display_string(v);
  }
  EXPECT_FALSE(matches("None", {}));
  EXPECT_FALSE(matches("''", {}));
  EXPECT_TRUE(matches("-1", {}));
}

TEST(FilterLogic, AndOrReturnTheDecidingOperand) {
  EXPECT_TRUE(matches("(phase or 'prefill') == 'prefill'", {}));
  EXPECT_TRUE(matches("(phase or 'prefill') == 'decode'", {{"phase", "decode"}}));
  EXPECT_TRUE(matches("(layer_id and name) == 'x'", {{"layer_id", 1}, {"name", "x"}}));
}

TEST(FilterLiterals, StringEscapesAndRawStrings) {
  EXPECT_TRUE(matches(R"(name == 'it\'s')", {{"name", "it's"}}));
  EXPECT_TRUE(matches(R"(name == "say \"hi\"")", {{"name", "say \"hi\""}}));
  EXPECT_TRUE(matches(R"(name == 'a\tb\\c')", {{"name", "a\tb\\c"}}));
  EXPECT_TRUE(matches(R"(name == r'\d+')", {{"name", "\\d+"}}));
  EXPECT_TRUE(matches(R"(name == r'\'')", {{"name", "\\'"}}));
  // An unknown escape keeps its backslash, as in Python.
  EXPECT_TRUE(matches(R"(name == '\d')", {{"name", "\\d"}}));
  EXPECT_TRUE(matches(R"(name == '\x41\u00e9\101')", {{"name",
                                                       "A\xc3\xa9"
                                                       "A"}}));
  EXPECT_TRUE(matches(R"(name == 'attn' "_out")", {{"name", "attn_out"}}));
  EXPECT_TRUE(matches("name == '''a'b'''", {{"name", "a'b"}}));
  EXPECT_TRUE(matches("name == u'x'", {{"name", "x"}}));
}

TEST(FilterLiterals, Numbers) {
  EXPECT_TRUE(
      matches("n == 1_000 and n == 0x3e8 and n == 0o1750 and n == 0b1111101000", {{"n", 1000}}));
  EXPECT_TRUE(matches("x == .5 and x == 5e-1 and x == 0.5", {{"x", 0.5}}));
  EXPECT_TRUE(matches("x == 5. and x == 5", {{"x", 5.0}}));
  EXPECT_TRUE(matches("n == -9223372036854775807", {{"n", -9223372036854775807LL}}));
  EXPECT_TRUE(matches("-n == 3", {{"n", -3}}));
  EXPECT_TRUE(matches("-n is None", {{"n", "text"}}));
}

TEST(FilterLiterals, Int64MinIsALiteralOnlyNegated) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_TRUE(matches("n == -9223372036854775808", {{"n", kMin}}));
  EXPECT_TRUE(matches("n == -0x8000000000000000", {{"n", kMin}}));
  EXPECT_FALSE(matches("n == -9223372036854775808", {{"n", kMin + 1}}));
  // Negated again it is Python's 2**63, above every int64 tag.
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_TRUE(matches("n < --9223372036854775808", {{"n", kMax}}));
  EXPECT_FALSE(matches("n == --9223372036854775808", {{"n", kMax}}));
}

TEST(FilterLiterals, FloatsBeyondDoubleRangeSaturateAsInPython) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(matches("x == 1e400 and x == 1E+999999999999999999999", {{"x", kInf}}));
  EXPECT_TRUE(matches("x == -1e400", {{"x", -kInf}}));
  EXPECT_TRUE(matches("x == 1e-400 and x == -1e-400", {{"x", 0.0}}));
  EXPECT_TRUE(matches("x < 1e400", {{"x", std::numeric_limits<double>::max()}}));
  EXPECT_TRUE(matches("x > 1e-400", {{"x", std::numeric_limits<double>::denorm_min()}}));
  // The digits' position counts with the exponent: 1e390 and 1e-391.
  const std::string zeros(400, '0');
  EXPECT_TRUE(matches("x == 1" + zeros + "e-10", {{"x", kInf}}));
  EXPECT_TRUE(matches("x == 0." + zeros + "1e+10", {{"x", 0.0}}));
  EXPECT_TRUE(matches("x == 1" + zeros + "e-100", {{"x", 1e300}}));
}

TEST(FilterLiterals, CommentsAndNewlines) {
  EXPECT_TRUE(matches("name == 'x'  # the attention input", {{"name", "x"}}));
  EXPECT_TRUE(matches("name == 'x'\n  and layer_id == 2", {{"name", "x"}, {"layer_id", 2}}));
}

TEST(Filter, KeepsExpressionAndMoves) {
  filter f = filter::compile("name == 'x'");
  EXPECT_EQ(f.expression(), "name == 'x'");
  filter g = std::move(f);
  EXPECT_EQ(g.expression(), "name == 'x'");
  EXPECT_TRUE(g.matches({{"name", "x"}}));
  f = filter::compile("False");
  EXPECT_EQ(f.expression(), "False");
}

TEST(Filter, ThreadSafeEvaluation) {
  const filter f = filter::compile("search(r'^layers\\.\\d+\\.attn', name) and layer_id < 8");
  std::vector<std::thread> threads;
  std::vector<int> hits(4, 0);
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 2000; ++i) {
        const tags t{{"name", "layers." + std::to_string(i % 16) + ".attn"}, {"layer_id", i % 16}};
        hits[w] += f.matches(t) ? 1 : 0;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int h : hits) EXPECT_EQ(h, 1000);
}

}  // namespace
}  // namespace graft
