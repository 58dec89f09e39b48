// Seeded random inputs: random bytes, soups of the language's tokens and
// mutations of valid filters. Each must either compile (and then evaluate
// without crashing, the same way twice) or throw filter_error with a
// well-formed message; anything else (a crash, a hang, another exception)
// fails the test.

#include <gtest/gtest.h>

#include <algorithm>
#include <graft/error.hpp>
#include <graft/filter.hpp>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace graft {
namespace {

const std::vector<std::string> kValid = {
    "name == 'x'",
    "name == 'x' and layer_id < 3",
    "layer_id is None and name == 'x'",
    "search(r'attn.*', name) is not None",
    R"(name in ("layer_input", "attn_output", "mlp_output") and graft_phase == "prefill")",
    "False",
    "layer_id is None or layer_id < 3 or layer_id == 24",
    "layer_id in [0,1,2,3]",
    R"(search("hidden", name) and layer_id == 0)",
    "not (layer_id >= 24) and match('l\\d+', name)",
    "0 <= layer_id < -3.5e-1 or name not in ('a',)",
    "(flag is True or scale != 1e3) and '''q''' in name",
};

const std::vector<std::string> kTokens = {
    "name", "layer_id", "graft_phase", "flag", "'x'", "\"attn\"", "r'\\d+'", "'it\\'s'", "'''t'''",
    "3",    "-1",       "2.5",         "1e-3", ".5",  "0x1f",     "True",    "False",    "None",
    "==",   "!=",       "<",           "<=",   ">",   ">=",       "in",      "not",      "is",
    "and",  "or",       "(",           ")",    "[",   "]",        ",",       "search",   "match",
    "'('",  "'a.*'",    "=",           "#",    "'",   "\"",       "\\",      "-",        "r",
    "u",    "'\\x4'",   "\n",          "é",    "9223372036854775808", "1e400",
};

std::string random_bytes(std::mt19937& rng) {
  std::uniform_int_distribution<int> length(0, 40);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> printable(0x20, 0x7e);
  const bool ascii = rng() % 2 == 0;
  std::string s(static_cast<std::size_t>(length(rng)), ' ');
  for (char& c : s) c = static_cast<char>(ascii ? printable(rng) : byte(rng));
  return s;
}

std::string token_soup(std::mt19937& rng) {
  std::uniform_int_distribution<std::size_t> count(1, 16);
  std::uniform_int_distribution<std::size_t> pick(0, kTokens.size() - 1);
  const bool spaced = rng() % 4 != 0;
  std::string s;
  for (std::size_t i = count(rng); i > 0; --i) {
    s += kTokens[pick(rng)];
    if (spaced) s += ' ';
  }
  return s;
}

std::string mutation(std::mt19937& rng) {
  std::string s = kValid[rng() % kValid.size()];
  for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:  // delete a short range
        s.erase(at, 1 + rng() % 4);
        break;
      case 1:  // insert a token
        s.insert(at, kTokens[rng() % kTokens.size()]);
        break;
      case 2:  // insert a random byte
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 3:  // duplicate a slice
        s.insert(at, s.substr(rng() % (s.size() + 1), rng() % 8));
        break;
      default:  // swap two characters
        if (s.size() >= 2) std::swap(s[rng() % s.size()], s[rng() % s.size()]);
        break;
    }
  }
  return s;
}

const std::vector<tags>& tag_sets() {
  static const std::vector<tags> sets = {
      {},
      {{"name", "attn_output"}, {"layer_id", 1}},
      {{"name", "x"}, {"layer_id", 2.5}, {"graft_phase", "prefill"}, {"flag", true}},
      {{"name", ""}, {"layer_id", std::numeric_limits<double>::quiet_NaN()}, {"flag", nullptr}},
      {{"name", 7}, {"layer_id", std::numeric_limits<long long>::min()}},
  };
  return sets;
}

TEST(FilterFuzz, EveryInputCompilesOrThrowsFilterError) {
  int compiled = 0;
  int rejected = 0;
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    std::mt19937 rng(seed);
    for (int i = 0; i < 5000; ++i) {
      const int kind = i % 3;
      const std::string input = kind == 0   ? random_bytes(rng)
                                : kind == 1 ? token_soup(rng)
                                            : mutation(rng);
      try {
        const filter f = filter::compile(input, "fuzz");
        ++compiled;
        for (const tags& t : tag_sets()) {
          EXPECT_EQ(f.matches(t), f.matches(t)) << "nondeterministic: " << input;
        }
      } catch (const filter_error& e) {
        ++rejected;
        const std::string message = e.what();
        EXPECT_EQ(message.rfind("fuzz: ", 0), 0u) << message;
        EXPECT_NE(message.find(" column "), std::string::npos) << message;
        EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 2) << message;
        EXPECT_EQ(message.back(), '^') << message;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "seed " << seed << " input " << i << " threw " << e.what() << ": "
                      << input;
      }
    }
  }
  // Both outcomes must be common, or the generators test nothing.
  EXPECT_GT(compiled, 1000);
  EXPECT_GT(rejected, 1000);
  RecordProperty("compiled", compiled);
  RecordProperty("rejected", rejected);
}

}  // namespace
}  // namespace graft
