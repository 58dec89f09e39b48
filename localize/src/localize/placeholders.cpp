#include <graft/localize/passes.hpp>

#include <algorithm>
#include <map>
#include <string>

namespace graft::harness::localize {

namespace {

// Where a placeholder stands in a /bin/sh command line.
enum class shell_quoting { bare, single_quoted, double_quoted };

// Characters the shell reads as themselves in every context: a value made of
// them alone goes in as it is, so a command line shown in a log stays plain.
bool reads_as_itself(const std::string& value) {
  if (value.empty()) return false;
  for (const char c : value) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!plain && std::string("_-./+:,@%=").find(c) == std::string::npos) return false;
  }
  return true;
}

// Every ' of value as '\'' : inside '...', that closes the quotes, adds an
// escaped quote and opens them again.
std::string with_single_quotes_escaped(const std::string& value) {
  std::string out;
  for (const char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

// The value as the shell will read it back, one word, from where it stands:
// bare, it goes in single quotes; inside '...', its quotes are escaped; inside
// "...", so are the four characters that keep a meaning there.
std::string quoted(const std::string& value, shell_quoting where) {
  switch (where) {
    case shell_quoting::bare:
      return reads_as_itself(value) ? value : "'" + with_single_quotes_escaped(value) + "'";
    case shell_quoting::single_quoted:
      return with_single_quotes_escaped(value);
    case shell_quoting::double_quoted:
      break;
  }
  std::string out;
  for (const char c : value) {
    if (std::string("\\$`\"").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// Follows the shell's quotes over text, one character at a time.
class quote_tracker {
 public:
  shell_quoting where() const { return where_; }
  // Takes in text[i] and returns how many characters it spans (2 for a
  // backslash and what it escapes).
  std::size_t step(const std::string& text, std::size_t i) {
    const char c = text[i];
    switch (where_) {
      case shell_quoting::bare:
        if (c == '\\') return i + 1 < text.size() ? 2 : 1;
        if (c == '\'') where_ = shell_quoting::single_quoted;
        if (c == '"') where_ = shell_quoting::double_quoted;
        return 1;
      case shell_quoting::single_quoted:
        if (c == '\'') where_ = shell_quoting::bare;
        return 1;
      case shell_quoting::double_quoted:
        if (c == '\\') return i + 1 < text.size() ? 2 : 1;
        if (c == '"') where_ = shell_quoting::bare;
        return 1;
    }
    return 1;
  }

 private:
  shell_quoting where_ = shell_quoting::bare;
};

}  // namespace

std::string substitute(const std::string& text, const std::map<std::string, std::string>& values,
                       placeholder_use use) {
  std::string out;
  quote_tracker quotes;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {
      const auto match = std::find_if(values.begin(), values.end(), [&](const auto& entry) {
        const std::string placeholder = "{" + entry.first + "}";
        return text.compare(i, placeholder.size(), placeholder) == 0;
      });
      if (match != values.end()) {
        out += use == placeholder_use::shell_line ? quoted(match->second, quotes.where()) : match->second;
        i += match->first.size() + 2;
        continue;
      }
    }
    const std::size_t span = use == placeholder_use::shell_line ? quotes.step(text, i) : 1;
    out.append(text, i, span);
    i += span;
  }
  return out;
}

}  // namespace graft::harness::localize
