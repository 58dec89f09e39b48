// search() and match(): Python's re.search / re.match on RE2.

#include <gtest/gtest.h>

#include <graft/filter.hpp>
#include <string>

namespace graft {
namespace {

bool matches(std::string_view expression, const tags& t) {
  return filter::compile(expression).matches(t);
}

TEST(FilterRegex, SearchFindsAnywhereMatchOnlyAtStart) {
  const tags t{{"name", "model.layers.3.self_attn"}};
  EXPECT_TRUE(matches("search('self_attn', name)", t));
  EXPECT_FALSE(matches("match('self_attn', name)", t));
  EXPECT_TRUE(matches(R"(match(r'model\.layers\.\d+\.', name))", t));
  EXPECT_FALSE(matches("search('^self_attn', name)", t));
  EXPECT_TRUE(matches("search('attn$', name)", t));
}

TEST(FilterRegex, MatchIsTruthyAndNotMakesItFalse) {
  const tags attn{{"name", "attn_output"}};
  const tags mlp{{"name", "mlp_output"}};
  EXPECT_TRUE(matches("search('attn', name)", attn));
  EXPECT_FALSE(matches("not search('attn', name)", attn));
  EXPECT_TRUE(matches("not search('attn', name)", mlp));
  EXPECT_TRUE(matches("search('attn', name) is None", mlp));
  EXPECT_FALSE(matches("search('attn', name) is None", attn));
  // Match objects compare by identity in Python: never equal to anything.
  EXPECT_FALSE(matches("search('attn', name) == search('attn', name)", attn));
  EXPECT_TRUE(matches("search('attn', name) != True", attn));
}

TEST(FilterRegex, NonStringSubjectIsNone) {
  EXPECT_TRUE(matches("search('1', layer_id) is None", {{"layer_id", 1}}));
  EXPECT_TRUE(matches("search('x', missing) is None", {}));
}

TEST(FilterRegex, PythonPatternFeatures) {
  EXPECT_TRUE(matches(R"(search('(?i)ATTN', name))", {{"name", "attn"}}));
  EXPECT_TRUE(matches(R"(search(r'(?P<layer>\d+)', name))", {{"name", "l12"}}));
  // '\d' in a plain string keeps its backslash, as in Python.
  EXPECT_TRUE(matches(R"(search('\d+', name))", {{"name", "l12"}}));
  EXPECT_FALSE(matches(R"(search('\d+', name))", {{"name", "l"}}));
  EXPECT_TRUE(matches(R"(match('.', name))", {{"name", "\xc3\xa9"}}));
}

TEST(FilterRegex, CatastrophicBacktrackingPatternFinishes) {
  // (a+)+$ on "aaaa...!" takes exponential time in a backtracking engine
  // (Python's re hangs); RE2 is linear in the text.
  const filter f = filter::compile("search('(a+)+$', name)");
  const std::string long_name = std::string(100000, 'a') + "!";
  EXPECT_FALSE(f.matches({{"name", long_name}}));
  EXPECT_TRUE(f.matches({{"name", std::string(100000, 'a')}}));
  const filter nested = filter::compile("match('(x+x+)+y', name)");
  EXPECT_FALSE(nested.matches({{"name", std::string(50000, 'x')}}));
}

}  // namespace
}  // namespace graft
