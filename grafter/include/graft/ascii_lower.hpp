#pragma once
// ASCII lower case, for names and switches read without regard to case (env
// values, backends, libtorch's dtype names, exception texts, CI switches,
// result names). Bytes outside ASCII pass unchanged, whatever the C locale.

#include <string>

namespace graft {

inline std::string ascii_lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

}  // namespace graft
