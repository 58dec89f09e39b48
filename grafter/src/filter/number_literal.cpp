// Number literals as Python writes them: 42, 1_000, 0x1f, 0o17, 0b101, 3.5,
// .5, 5., 1e-3. Integers are 64-bit (the width of an int tag).

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "filter/literals.hpp"

namespace graft::detail {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) {
  return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int digit_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Consumes digits of base with single '_' separators between them; returns
// the end. Stops before anything else.
std::size_t scan_digits(std::string_view text, std::size_t pos, int base, std::string& digits) {
  while (pos < text.size()) {
    if (text[pos] == '_' && !digits.empty() && pos + 1 < text.size() &&
        digit_value(text[pos + 1]) < base) {
      ++pos;
      continue;
    }
    if (digit_value(text[pos]) >= base) break;
    digits += text[pos++];
  }
  return pos;
}

// A decimal literal that double cannot hold is inf when it is large and 0.0
// when it is tiny, as in Python (1e400 == inf, 1e-400 == 0.0). Which one
// depends on the decimal exponent of its first significant digit; the
// mantissa is never all zeros here, as zero is always in range.
double beyond_double_range(std::string_view literal) {
  const std::size_t e = std::min(literal.find('e'), literal.size());
  const std::string_view mantissa = literal.substr(0, e);
  const auto point = static_cast<std::int64_t>(std::min(mantissa.find('.'), mantissa.size()));
  const auto first = static_cast<std::int64_t>(mantissa.find_first_of("123456789"));
  std::int64_t exponent = first < point ? point - first - 1 : point - first;
  if (e < literal.size()) {
    std::string_view written = literal.substr(e + 1);
    const bool negative = written.front() == '-';
    if (written.front() == '+' || negative) written.remove_prefix(1);
    std::int64_t magnitude = 0;
    const char* digits = written.data();
    const auto [end, ec] = std::from_chars(digits, digits + written.size(), magnitude);
    // An exponent beyond int64 outweighs any position a filter can hold.
    if (ec != std::errc()) magnitude = std::numeric_limits<std::int64_t>::max() / 2;
    exponent += negative ? -magnitude : magnitude;
  }
  return exponent >= 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

std::size_t scan_number(const filter_source& source, std::size_t start, token& out) {
  const std::string_view text = source.text;
  std::string digits;
  std::size_t pos = start;
  int base = 10;
  if (text[pos] == '0' && pos + 1 < text.size()) {
    const char marker = text[pos + 1];
    base = marker == 'x' || marker == 'X'   ? 16
           : marker == 'o' || marker == 'O' ? 8
           : marker == 'b' || marker == 'B' ? 2
                                            : 10;
  }
  bool is_real = false;
  if (base != 10) {
    pos += 2;
    if (pos < text.size() && text[pos] == '_') ++pos;  // Python allows 0x_ff
    pos = scan_digits(text, pos, base, digits);
  } else {
    pos = scan_digits(text, pos, 10, digits);
    if (pos < text.size() && text[pos] == '.') {
      is_real = true;
      digits += text[pos++];
      std::string fraction;
      pos = scan_digits(text, pos, 10, fraction);
      digits += fraction;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      std::size_t exponent = pos + 1;
      std::string exponent_digits(1, 'e');
      if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) {
        exponent_digits += text[exponent++];
      }
      if (exponent < text.size() && is_digit(text[exponent])) {
        std::string magnitude;
        pos = scan_digits(text, exponent, 10, magnitude);
        digits += exponent_digits + magnitude;
        is_real = true;
      }
    }
  }
  const bool bad_tail = pos < text.size() && (is_name_char(text[pos]) || text[pos] == '.');
  if (digits.empty() || digits == "." || bad_tail) {
    throw_filter_error(source, start, "invalid number literal");
  }

  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  if (is_real) {
    out.kind = token_kind::real;
    const auto [end, ec] = std::from_chars(first, last, out.real);
    if (ec == std::errc::result_out_of_range) {
      out.real = beyond_double_range(digits);
    } else if (ec != std::errc() || end != last) {
      throw_filter_error(source, start, "invalid number literal");
    }
    return pos;
  }
  if (base == 10 && digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != std::string::npos) {
    throw_filter_error(source, start,
                       "leading zeros in a decimal integer are not allowed (as in Python); "
                       "write 0o17 for an octal number");
  }
  out.kind = token_kind::integer;
  const auto [end, ec] = std::from_chars(first, last, out.integer, base);
  if (ec == std::errc() && end == last) return pos;
  std::uint64_t magnitude = 0;
  const auto [wide_end, wide_ec] = std::from_chars(first, last, magnitude, base);
  out.is_int64_min_magnitude = wide_ec == std::errc() && wide_end == last &&
                               magnitude == std::uint64_t{1} << 63;
  if (!out.is_int64_min_magnitude) throw_filter_error(source, start, kIntegerOutOfRange);
  return pos;
}

}  // namespace graft::detail
