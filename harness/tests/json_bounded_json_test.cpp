// Parsing the JSON graft reads from files within a nesting bound.
#include <string>

#include <gtest/gtest.h>

#include <graft/harness/bounded_json.hpp>

namespace graft::harness {
namespace {

std::string nested_arrays(int depth) {
  const auto n = static_cast<std::size_t>(depth);
  return std::string(n, '[') + std::string(n, ']');
}

TEST(BoundedJson, ParsesAsNlohmannDoes) {
  EXPECT_EQ(parse_bounded_json(R"({"a": [1, {"b": null}], "c": "x"})"),
            nlohmann::json::parse(R"({"a": [1, {"b": null}], "c": "x"})"));
}

std::string refusal_of(const std::string& text) {
  try {
    parse_bounded_json(text);
  } catch (const unreadable_json& e) {
    return e.what();
  }
  return "";
}

TEST(BoundedJson, EveryFailureIsUnreadableJsonSayingWhy) {
  EXPECT_EQ(refusal_of("{\"a\": ").rfind("invalid JSON at byte 7: [json.exception.parse_error.101]", 0), 0u)
      << refusal_of("{\"a\": ");
  EXPECT_EQ(refusal_of("{\"a\": 1e400}").rfind("invalid JSON: [json.exception.out_of_range.406] number overflow", 0),
            0u)
      << refusal_of("{\"a\": 1e400}");
}

// nlohmann's message quotes the bytes last read; the message goes on into
// JSON (graft list --json, graft diff --json), whose writer throws on bytes
// that are not UTF-8, so such a byte shows as \xNN and UTF-8 stays as it is.
TEST(BoundedJson, AMessageIsUtf8WhateverBytesTheTextHolds) {
  const std::string latin1 = refusal_of("{\"a\": \"caf\xe9\"}");
  EXPECT_NE(latin1.find("ill-formed UTF-8 byte; last read: '\"caf\\xe9\"'"), std::string::npos) << latin1;
  EXPECT_NO_THROW((void)nlohmann::json(latin1).dump()) << latin1;
  const std::string accented = refusal_of("{\"caf\xc3\xa9\\q\": 1}");
  EXPECT_NE(accented.find("last read: '\"caf\xc3\xa9\\q'"), std::string::npos) << accented;
}

TEST(BoundedJson, RefusesDocumentsNestedDeeperThanTheBound) {
  // The outermost value is at depth 0, so kMaxJsonDepth + 1 brackets still fit.
  EXPECT_NO_THROW(parse_bounded_json(nested_arrays(kMaxJsonDepth + 1)));
  EXPECT_EQ(refusal_of(nested_arrays(kMaxJsonDepth + 2)),
            "it nests deeper than 64 levels, which no file graft writes or reads does");
  // Deep enough that walking it recursively would overflow the stack.
  EXPECT_THROW(parse_bounded_json("{\"x\": " + nested_arrays(200000) + "}"), unreadable_json);
}

TEST(BoundedJson, RefusesAKeyGivenTwiceInOneObjectNamingItsPath) {
  EXPECT_EQ(refusal_of(R"({"a": 1, "a": 2})"),
            "a: the key is given twice in one object, and JSON would keep only the last; remove or rename one of "
            "them");
  const std::string nested = R"({"steps": [{"x": 1}, {"t": {"expect": {}, "tensor": [1, [2]], "expect": {}}}]})";
  EXPECT_EQ(refusal_of(nested).rfind("steps[1].t.expect: the key is given twice", 0), 0u) << refusal_of(nested);
  const std::string in_an_array = R"([[0, 1], {"a": {"b": 1}, "a": 2}])";
  EXPECT_EQ(refusal_of(in_an_array).rfind("[1].a: the key is given twice", 0), 0u) << refusal_of(in_an_array);
}

TEST(BoundedJson, TheSameKeyInDifferentObjectsIsNoRepeat) {
  const std::string text = R"({"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 3}, {"a": 4}], "c": {"a": 5}})";
  EXPECT_EQ(parse_bounded_json(text), nlohmann::json::parse(text));
}

TEST(BoundedJson, AnEventLineIsOneObjectOrNothing) {
  EXPECT_EQ(parse_event_line(R"({"kind": "send"})"), nlohmann::json({{"kind", "send"}}));
  EXPECT_FALSE(parse_event_line("[1, 2]").has_value());
  EXPECT_FALSE(parse_event_line(R"({"kind": "send", "kind": "recv_grafted"})").has_value());
  EXPECT_FALSE(parse_event_line("{\"kind\": ").has_value());
  EXPECT_FALSE(parse_event_line("{\"x\": " + nested_arrays(100000) + "}").has_value());
}

}  // namespace
}  // namespace graft::harness
