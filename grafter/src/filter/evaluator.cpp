// Evaluation of a compiled filter: reads the tags by reference, builds values
// on the stack and never allocates or throws. (RE2 may fill its internal,
// thread-safe DFA cache the first time a pattern runs; that is RE2's memory,
// bounded by its max_mem option.)

#include "filter/evaluator.hpp"

namespace graft::detail {

namespace {

value boolean(bool b) {
  value v;
  v.kind = value_kind::boolean;
  v.boolean = b;
  return v;
}

// One evaluation: the program and the tags it reads.
class evaluator {
 public:
  evaluator(const compiled_filter& program, const tags& t) : program_(program), tags_(t) {}

  value evaluate(std::uint32_t index) const noexcept;

 private:
  const node& node_at(std::uint32_t index) const { return program_.nodes[index]; }
  std::uint32_t child(const node& n, std::uint32_t i) const {
    return program_.children[n.first + i];
  }
  bool holds(compare_op op, const value& left, std::uint32_t right_index,
             const value& right) const noexcept;
  bool contains(const node& sequence, const value& needle) const noexcept;

  const compiled_filter& program_;
  const tags& tags_;
};

value evaluator::evaluate(std::uint32_t index) const noexcept {
  const node& n = node_at(index);
  switch (n.kind) {
    case node_kind::literal: {
      value v = n.literal;
      if (v.kind == value_kind::string) v.string = n.text;
      return v;
    }
    case node_kind::tag: return view_of(tags_.find(n.text));
    case node_kind::negate: return negated(evaluate(child(n, 0)));
    case node_kind::logical_not: return boolean(!truthy(evaluate(child(n, 0))));
    case node_kind::logical_and:
    case node_kind::logical_or: {
      // Python returns the operand that decided: 'x' or None is 'x'.
      const bool stop_when = n.kind == node_kind::logical_or;
      value v;
      for (std::uint32_t i = 0; i < n.count; ++i) {
        v = evaluate(child(n, i));
        if (truthy(v) == stop_when) break;
      }
      return v;
    }
    case node_kind::comparison: {
      value left = evaluate(child(n, 0));
      for (std::uint32_t i = 1; i < n.count; ++i) {
        const std::uint32_t right_index = child(n, i);
        // A tuple or list has no value of its own; 'in' looks into its node.
        const value right =
            node_at(right_index).kind == node_kind::sequence ? value{} : evaluate(right_index);
        if (!holds(program_.ops[n.first_op + i - 1], left, right_index, right)) {
          return boolean(false);
        }
        left = right;
      }
      return boolean(true);
    }
    case node_kind::sequence: return value{};  // the parser allows it only after in
    case node_kind::regex: {
      const value subject = evaluate(child(n, 0));
      value result;
      if (subject.kind != value_kind::string) return result;  // search(p, None) is None
      const re2::StringPiece text(subject.string.data(), subject.string.size());
      if (n.pattern->Match(text, 0, text.size(), n.anchor, nullptr, 0)) {
        result.kind = value_kind::match;
      }
      return result;
    }
  }
  return value{};
}

bool evaluator::holds(compare_op op, const value& left, std::uint32_t right_index,
                      const value& right) const noexcept {
  switch (op) {
    case compare_op::equal: return equal(left, right);
    case compare_op::not_equal: return !equal(left, right);
    case compare_op::less: return compare(left, right) == ordering::less;
    case compare_op::less_equal: {
      const ordering o = compare(left, right);
      return o == ordering::less || o == ordering::same;
    }
    case compare_op::greater: return compare(left, right) == ordering::greater;
    case compare_op::greater_equal: {
      const ordering o = compare(left, right);
      return o == ordering::greater || o == ordering::same;
    }
    case compare_op::in:
    case compare_op::not_in: {
      const node& container = node_at(right_index);
      bool found = false;
      if (container.kind == node_kind::sequence) {
        found = contains(container, left);
      } else if (left.kind == value_kind::string && right.kind == value_kind::string) {
        found = right.string.find(left.string) != std::string_view::npos;  // substring, as Python
      }
      // Python raises TypeError for 3 in 'abc' or 'a' in None; here 'in' is false.
      return found == (op == compare_op::in);
    }
    case compare_op::is:
    case compare_op::is_not: {
      // The parser allows only None, True and False on the right.
      const bool same = left.kind == right.kind &&
                        (left.kind == value_kind::null || left.boolean == right.boolean);
      return same == (op == compare_op::is);
    }
  }
  return false;
}

bool evaluator::contains(const node& sequence, const value& needle) const noexcept {
  for (std::uint32_t i = 0; i < sequence.count; ++i) {
    if (equal(needle, evaluate(child(sequence, i)))) return true;
  }
  return false;
}

}  // namespace

bool evaluate(const compiled_filter& program, const tags& t) noexcept {
  return truthy(evaluator(program, t).evaluate(program.root));
}

}  // namespace graft::detail
