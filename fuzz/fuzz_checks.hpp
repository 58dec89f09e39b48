#pragma once
// What the fuzz targets share: a finding stops the process (libFuzzer then
// saves the input as crash-*), naming what went wrong and the exception's
// dynamic type, so that a report says more than "deadly signal".

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

namespace graft::fuzz {

[[noreturn]] inline void finding(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "\n==graft fuzz finding== %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

inline std::string type_name(const std::exception& e) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                                    std::free);
  return status == 0 && name ? name.get() : typeid(e).name();
}

[[noreturn]] inline void unexpected_exception(const std::exception& e) {
  finding("an exception of a type the parser must not let escape: " + type_name(e), e.what());
}

// Whether text is well-formed UTF-8 (no overlongs, surrogates or code points
// beyond U+10FFFF): what nlohmann's dump() requires of every string it writes,
// and messages end up in JSON (graft list --json, graft diff --json).
inline bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned min = 0;
    unsigned code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2, min = 0x80, code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3, min = 0x800, code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4, min = 0x10000, code = c & 0x07;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

}  // namespace graft::fuzz
