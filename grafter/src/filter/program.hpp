#pragma once
// The compiled form of a filter: a flat vector of nodes that refer to their
// operands by index. And/or chains and comparison chains are single n-ary
// nodes, so evaluation recurses only as deep as the expression nests (which
// the parser bounds), never as long as it is.

#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <graft/tags.hpp>
#include <memory>
#include <string>
#include <vector>

#include "filter/value.hpp"

namespace graft::detail {

enum class node_kind : std::uint8_t {
  literal,      // literal (its string in text)
  tag,          // the tag named text
  negate,       // -operand
  logical_not,  // not operand
  logical_and,  // a and b and ...: Python's, returning the deciding operand
  logical_or,   // a or b or ...
  comparison,   // a op1 b op2 c ...: (a op1 b) and (b op2 c), each operand once
  sequence,     // (a, b, ...) or [a, b, ...]: only as the right side of in / not in
  regex,        // search(pattern, operand) or match(pattern, operand)
};

enum class compare_op : std::uint8_t {
  equal,
  not_equal,
  less,
  less_equal,
  greater,
  greater_equal,
  in,
  not_in,
  is,
  is_not,
};

struct node {
  node_kind kind = node_kind::literal;
  std::size_t offset = 0;  // where it starts in the expression
  value literal;           // literal; its string part is text
  std::string text;
  // Operands: children[first, first + count) of the program. A comparison's
  // operators are ops[first_op, first_op + count - 1).
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  std::uint32_t first_op = 0;
  re2::RE2::Anchor anchor = re2::RE2::UNANCHORED;  // match() anchors at the start
  std::unique_ptr<const re2::RE2> pattern;
};

struct compiled_filter {
  std::vector<node> nodes;
  std::vector<std::uint32_t> children;
  std::vector<compare_op> ops;
  std::uint32_t root = 0;
};

}  // namespace graft::detail
