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
  EXPECT_THROW(parse_bounded_json("{\"a\": "), nlohmann::json::parse_error);
}

TEST(BoundedJson, RefusesDocumentsNestedDeeperThanTheBound) {
  // The outermost value is at depth 0, so kMaxJsonDepth + 1 brackets still fit.
  EXPECT_NO_THROW(parse_bounded_json(nested_arrays(kMaxJsonDepth + 1)));
  EXPECT_THROW(parse_bounded_json(nested_arrays(kMaxJsonDepth + 2)), json_too_deep);
  // Deep enough that walking it recursively would overflow the stack.
  EXPECT_THROW(parse_bounded_json("{\"x\": " + nested_arrays(200000) + "}"), json_too_deep);
}

}  // namespace
}  // namespace graft::harness
