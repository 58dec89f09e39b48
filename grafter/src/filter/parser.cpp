#include "filter/parser.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "filter/regex_pattern.hpp"
#include "filter/token.hpp"

namespace graft::detail {

namespace {

std::string describe(const token& t) {
  if (t.kind == token_kind::end) return "end of expression";
  if (t.kind == token_kind::string) return "string " + std::string(t.source);
  return "'" + std::string(t.source) + "'";
}

class parser {
 public:
  parser(const filter_source& source, std::vector<token> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  compiled_filter parse() {
    if (peek().kind == token_kind::end) {
      fail(0, "empty expression; write a condition such as name == 'x', or False to match nothing");
    }
    program_.root = parse_or();
    if (peek().kind != token_kind::end) unexpected(peek());
    return std::move(program_);
  }

 private:
  // Counts one level of nesting for as long as it lives.
  class nesting {
   public:
    nesting(parser& p, const token& at) : parser_(p) {
      if (++parser_.depth_ > kMaxNesting) {
        parser_.fail(at.offset,
                     "expression nests deeper than " + std::to_string(kMaxNesting) + " levels");
      }
    }
    ~nesting() { --parser_.depth_; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;

   private:
    parser& parser_;
  };

  const token& peek(std::size_t ahead = 0) const {
    const std::size_t i = position_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const token& advance() {
    const token& t = tokens_[position_];
    if (position_ + 1 < tokens_.size()) ++position_;
    return t;
  }
  bool accept(token_kind kind) {
    if (peek().kind != kind) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& problem) const {
    throw_filter_error(source_, offset, problem);
  }
  [[noreturn]] void unexpected(const token& t, std::string_view expected = {}) const {
    if (t.kind == token_kind::assign) {
      fail(t.offset,
           "'=' is not an operator; write '==' to compare (layer_id == 3) or 'in' for a set "
           "of values (layer_id in [0, 1, 2, 3])");
    }
    std::string problem = "unexpected " + describe(t);
    if (!expected.empty()) problem += ", expected " + std::string(expected);
    fail(t.offset, problem);
  }
  // The closing bracket of the group opened at open, or a precise error.
  void close(const token& open, token_kind closing, std::string_view spelling) {
    if (accept(closing)) return;
    if (peek().kind == token_kind::end) {
      fail(open.offset, "'" + std::string(open.source) + "' is never closed");
    }
    unexpected(peek(), "'" + std::string(spelling) + "'");
  }

  std::uint32_t add(node n) {
    program_.nodes.push_back(std::move(n));
    return static_cast<std::uint32_t>(program_.nodes.size() - 1);
  }
  std::uint32_t add_with_operands(node n, const std::vector<std::uint32_t>& operands) {
    n.first = static_cast<std::uint32_t>(program_.children.size());
    n.count = static_cast<std::uint32_t>(operands.size());
    program_.children.insert(program_.children.end(), operands.begin(), operands.end());
    return add(std::move(n));
  }
  node make(node_kind kind, std::size_t offset) const {
    node n;
    n.kind = kind;
    n.offset = offset;
    return n;
  }

  // allow_sequence: a tuple or list may stand here on its own, as in the
  // redundant parentheses of x in ((0, 1)); it may not be an operand.
  std::uint32_t parse_or(bool allow_sequence = false) {
    return parse_chain(token_kind::kw_or, node_kind::logical_or, allow_sequence);
  }
  std::uint32_t parse_and(bool allow_sequence) {
    return parse_chain(token_kind::kw_and, node_kind::logical_and, allow_sequence);
  }

  // a or b or c (or the same with and) as one n-ary node.
  std::uint32_t parse_chain(token_kind joiner, node_kind kind, bool allow_sequence) {
    const std::size_t offset = peek().offset;
    const auto operand = [&](bool allow) {
      return joiner == token_kind::kw_or ? parse_and(allow) : parse_not(allow);
    };
    std::vector<std::uint32_t> operands{operand(allow_sequence)};
    if (program_.nodes[operands.front()].kind == node_kind::sequence && peek().kind == joiner) {
      fail(peek().offset, "a tuple or list cannot be an operand of '" + std::string(peek().source) +
                              "'; it is allowed only after 'in' or 'not in'");
    }
    while (accept(joiner)) operands.push_back(operand(false));
    if (operands.size() == 1) return operands.front();
    return add_with_operands(make(kind, offset), operands);
  }

  std::uint32_t parse_not(bool allow_sequence) {
    if (peek().kind != token_kind::kw_not) return parse_comparison(allow_sequence);
    const nesting level(*this, peek());
    const std::size_t offset = advance().offset;
    return add_with_operands(make(node_kind::logical_not, offset), {parse_not(false)});
  }

  // The comparison operator at the cursor (consumed), if there is one.
  bool accept_comparison(compare_op& op) {
    switch (peek().kind) {
      case token_kind::equal: op = compare_op::equal; break;
      case token_kind::not_equal: op = compare_op::not_equal; break;
      case token_kind::less: op = compare_op::less; break;
      case token_kind::less_equal: op = compare_op::less_equal; break;
      case token_kind::greater: op = compare_op::greater; break;
      case token_kind::greater_equal: op = compare_op::greater_equal; break;
      case token_kind::kw_in: op = compare_op::in; break;
      case token_kind::kw_is:
        advance();
        op = accept(token_kind::kw_not) ? compare_op::is_not : compare_op::is;
        return true;
      case token_kind::kw_not:
        if (peek(1).kind != token_kind::kw_in) return false;
        advance();
        op = compare_op::not_in;
        break;
      default: return false;
    }
    advance();
    return true;
  }

  std::uint32_t parse_comparison(bool allow_sequence) {
    const std::size_t offset = peek().offset;
    std::vector<std::uint32_t> operands{parse_unary(allow_sequence)};
    std::vector<compare_op> ops;
    compare_op op{};
    while (true) {
      const token& at = peek();
      if (!accept_comparison(op)) break;
      if (program_.nodes[operands.back()].kind == node_kind::sequence) {
        fail(at.offset,
             "a tuple or list cannot be compared further; split the comparison "
             "with 'and'");
      }
      const bool membership = op == compare_op::in || op == compare_op::not_in;
      const std::uint32_t right = parse_unary(membership);
      if (op == compare_op::is || op == compare_op::is_not) check_identity_operand(right);
      operands.push_back(right);
      ops.push_back(op);
    }
    if (ops.empty()) return operands.front();
    node n = make(node_kind::comparison, offset);
    n.first_op = static_cast<std::uint32_t>(program_.ops.size());
    program_.ops.insert(program_.ops.end(), ops.begin(), ops.end());
    return add_with_operands(std::move(n), operands);
  }

  // Python's 'is' compares identity, which means something only for None,
  // True and False; anything else is a mistake for ==.
  void check_identity_operand(std::uint32_t index) const {
    const node& n = program_.nodes[index];
    const bool singleton = n.kind == node_kind::literal && (n.literal.kind == value_kind::null ||
                                                            n.literal.kind == value_kind::boolean);
    if (!singleton) {
      fail(n.offset, "'is' compares only with None, True or False; use == to compare values");
    }
  }

  std::uint32_t parse_unary(bool allow_sequence) {
    if (peek().kind != token_kind::minus) return parse_primary(allow_sequence);
    const nesting level(*this, peek());
    const std::size_t offset = advance().offset;
    if (peek().kind == token_kind::integer && peek().is_int64_min_magnitude) {
      advance();
      value v;
      v.kind = value_kind::integer;
      v.integer = std::numeric_limits<std::int64_t>::min();
      return literal(offset, v);
    }
    const std::uint32_t operand = parse_unary(false);
    node& n = program_.nodes[operand];
    if (n.kind != node_kind::literal) {
      return add_with_operands(make(node_kind::negate, offset), {operand});
    }
    // A negative number is a literal, folded here.
    if (n.literal.kind != value_kind::integer && n.literal.kind != value_kind::real) {
      fail(n.offset, "'-' applies to numbers only");
    }
    n.literal = negated(n.literal);
    n.offset = offset;
    return operand;
  }

  std::uint32_t literal(std::size_t offset, value v, std::string text = {}) {
    node n = make(node_kind::literal, offset);
    n.literal = v;
    n.text = std::move(text);
    return add(std::move(n));
  }

  std::uint32_t parse_primary(bool allow_sequence) {
    const token& t = advance();
    value v;
    switch (t.kind) {
      case token_kind::kw_none: return literal(t.offset, v);
      case token_kind::kw_true:
      case token_kind::kw_false:
        v.kind = value_kind::boolean;
        v.boolean = t.kind == token_kind::kw_true;
        return literal(t.offset, v);
      case token_kind::integer:
        if (t.is_int64_min_magnitude) fail(t.offset, std::string(kIntegerOutOfRange));
        v.kind = value_kind::integer;
        v.integer = t.integer;
        return literal(t.offset, v);
      case token_kind::real:
        v.kind = value_kind::real;
        v.real = t.real;
        return literal(t.offset, v);
      case token_kind::string: {
        // Adjacent literals concatenate, as in Python: 'attn' '_out'.
        std::string text = t.text;
        while (peek().kind == token_kind::string) text += advance().text;
        v.kind = value_kind::string;
        return literal(t.offset, v, std::move(text));
      }
      case token_kind::name: return parse_name(t);
      case token_kind::left_paren: return parse_parenthesized(t, allow_sequence);
      case token_kind::left_bracket:
        if (!allow_sequence) fail(t.offset, "a list is allowed only after 'in' or 'not in'");
        return parse_sequence(t, token_kind::right_bracket, "]");
      default: unexpected(t, "a value");
    }
  }

  std::uint32_t parse_parenthesized(const token& open, bool allow_sequence) {
    const nesting level(*this, open);
    const auto not_here = [&] {
      fail(open.offset, "a tuple is allowed only after 'in' or 'not in'");
    };
    if (peek().kind == token_kind::right_paren) {  // () is the empty tuple
      if (!allow_sequence) not_here();
      advance();
      return add_with_operands(make(node_kind::sequence, open.offset), {});
    }
    const std::uint32_t inner = parse_or(allow_sequence);
    if (peek().kind != token_kind::comma) {
      close(open, token_kind::right_paren, ")");
      return inner;
    }
    if (!allow_sequence) not_here();
    if (program_.nodes[inner].kind == node_kind::sequence) {
      fail(program_.nodes[inner].offset,
           "a tuple or list cannot be an element of another; tags hold single values");
    }
    advance();
    return parse_sequence(open, token_kind::right_paren, ")", {inner});
  }

  // The rest of a tuple or list: elements, an optional trailing comma, closing.
  std::uint32_t parse_sequence(const token& open, token_kind closing, std::string_view spelling,
                               std::vector<std::uint32_t> elements = {}) {
    const nesting level(*this, open);
    while (peek().kind != closing) {
      elements.push_back(parse_or());
      if (!accept(token_kind::comma)) break;
    }
    close(open, closing, spelling);
    return add_with_operands(make(node_kind::sequence, open.offset), elements);
  }

  std::uint32_t parse_name(const token& name) {
    const bool is_function = name.text == "search" || name.text == "match";
    if (peek().kind == token_kind::left_paren) {
      if (!is_function) {
        fail(name.offset, "unknown function '" + name.text +
                              "'; filters offer search(pattern, value) and match(pattern, value)");
      }
      return parse_call(name);
    }
    if (is_function) {
      fail(name.offset,
           "'" + name.text + "' is a function; call it as " + name.text + "(pattern, value)");
    }
    node n = make(node_kind::tag, name.offset);
    n.text = name.text;
    return add(std::move(n));
  }

  std::uint32_t parse_call(const token& name) {
    const token& open = advance();
    const nesting level(*this, open);
    std::vector<std::uint32_t> arguments;
    while (peek().kind != token_kind::right_paren) {
      if (peek().kind == token_kind::name && peek(1).kind == token_kind::assign) {
        fail(peek().offset,
             "keyword arguments are not supported; call " + name.text + "(pattern, value)");
      }
      arguments.push_back(parse_or());
      if (!accept(token_kind::comma)) break;
    }
    close(open, token_kind::right_paren, ")");
    if (arguments.size() != 2) {
      fail(name.offset, name.text + "() takes 2 arguments (pattern, value), got " +
                            std::to_string(arguments.size()));
    }
    const node& pattern = program_.nodes[arguments[0]];
    if (pattern.kind != node_kind::literal || pattern.literal.kind != value_kind::string) {
      fail(pattern.offset, "the pattern of " + name.text +
                               "() must be a string literal such as r'attn.*' (it is compiled "
                               "once, with the filter)");
    }
    node call = make(node_kind::regex, name.offset);
    call.anchor = name.text == "match" ? re2::RE2::ANCHOR_START : re2::RE2::UNANCHORED;
    call.pattern = compile_pattern(source_, pattern.offset, pattern.text, name.text);
    return add_with_operands(std::move(call), {arguments[1]});
  }

  const filter_source& source_;
  std::vector<token> tokens_;
  std::size_t position_ = 0;
  int depth_ = 0;
  compiled_filter program_;
};

}  // namespace

compiled_filter parse_filter(const filter_source& source) {
  return parser(source, tokenize(source)).parse();
}

}  // namespace graft::detail
