#include <cstdio>
#include <string>

#include "filter/literals.hpp"
#include "filter/token.hpp"

namespace graft::detail {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

token_kind keyword_or_name(std::string_view word) {
  if (word == "and") return token_kind::kw_and;
  if (word == "or") return token_kind::kw_or;
  if (word == "not") return token_kind::kw_not;
  if (word == "in") return token_kind::kw_in;
  if (word == "is") return token_kind::kw_is;
  if (word == "True") return token_kind::kw_true;
  if (word == "False") return token_kind::kw_false;
  if (word == "None") return token_kind::kw_none;
  return token_kind::name;
}

// Letters Python accepts before a quote (r, u, b, f and their pairs).
bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) return false;
  for (char c : word) {
    if (std::string_view("rRuUbBfF").find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string describe_character(char c) {
  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F) {
    return std::string("'") + c + "'";
  }
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(c));
  return buffer;
}

// The operators, longest first so that "==" wins over "=".
struct operator_spelling {
  std::string_view text;
  token_kind kind;
};
constexpr operator_spelling kOperators[] = {
    {"==", token_kind::equal},        {"!=", token_kind::not_equal},
    {"<=", token_kind::less_equal},   {">=", token_kind::greater_equal},
    {"<", token_kind::less},          {">", token_kind::greater},
    {"=", token_kind::assign},        {"(", token_kind::left_paren},
    {")", token_kind::right_paren},   {"[", token_kind::left_bracket},
    {"]", token_kind::right_bracket}, {",", token_kind::comma},
    {"-", token_kind::minus},
};

// Characters users bring from other languages, and what to write instead.
void reject_foreign_operator(const filter_source& source, std::size_t pos) {
  const char c = source.text[pos];
  if (c == '&') throw_filter_error(source, pos, "'&' is not an operator here; write 'and'");
  if (c == '|') throw_filter_error(source, pos, "'|' is not an operator here; write 'or'");
  if (c == '!') throw_filter_error(source, pos, "'!' is not an operator here; write 'not'");
}

}  // namespace

std::vector<token> tokenize(const filter_source& source) {
  const std::string_view text = source.text;
  std::vector<token> tokens;
  std::size_t pos = 0;
  // The end token sits right after the last token, not after trailing
  // whitespace: "name ==\n" is missing its value on line 1, not line 2.
  std::size_t after_last = 0;
  for (;;) {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) {
      ++pos;
    }
    if (pos < text.size() && text[pos] == '#') {  // a comment, as in Python
      while (pos < text.size() && text[pos] != '\n') ++pos;
      continue;
    }
    token t;
    t.offset = pos;
    if (pos >= text.size()) {
      t.offset = after_last;
      tokens.push_back(std::move(t));
      return tokens;
    }
    const char c = text[pos];
    std::size_t end = pos + 1;
    if (is_name_start(c)) {
      while (end < text.size() && is_name_char(text[end])) ++end;
      const std::string_view word = text.substr(pos, end - pos);
      if (end < text.size() && (text[end] == '\'' || text[end] == '"') && is_string_prefix(word)) {
        if (word != "r" && word != "R" && word != "u" && word != "U") {
          throw_filter_error(source, pos,
                             "string prefix '" + std::string(word) +
                                 "' is not supported; write 'text' or r'raw text'");
        }
        end = scan_string(source, pos, end, word == "r" || word == "R", t);
      } else {
        t.kind = keyword_or_name(word);
        t.text = std::string(word);
      }
    } else if (c == '\'' || c == '"') {
      end = scan_string(source, pos, pos, false, t);
    } else if (is_digit(c) || (c == '.' && pos + 1 < text.size() && is_digit(text[pos + 1]))) {
      end = scan_number(source, pos, t);
    } else {
      bool found = false;
      for (const auto& op : kOperators) {
        if (text.compare(pos, op.text.size(), op.text) == 0) {
          t.kind = op.kind;
          end = pos + op.text.size();
          found = true;
          break;
        }
      }
      if (!found) {
        reject_foreign_operator(source, pos);
        throw_filter_error(source, pos, "unexpected character " + describe_character(c));
      }
    }
    t.source = text.substr(pos, end - pos);
    tokens.push_back(std::move(t));
    pos = after_last = end;
  }
}

}  // namespace graft::detail
