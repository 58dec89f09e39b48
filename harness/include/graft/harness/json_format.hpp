#pragma once
// Deterministic JSON text for snapshots: keys sorted, two-space indentation,
// short scalar arrays on one line, and every float printed with one fixed
// format so that the same value always gives the same bytes.

#include <string>

#include <nlohmann/json.hpp>

namespace graft::harness {

// "%.9g", always with a '.' or an exponent so that it reads back as a float.
// NaN, Inf, -Inf and -0.0 never reach here: encode_special_floats replaces them.
std::string format_float(double value);

// format_float, or "NaN" / "Inf" / "-Inf" / "-0.0" for the special values.
std::string format_number(double value);

// A copy of j where every NaN / +Inf / -Inf / -0.0 float is the string
// "NaN" / "Inf" / "-Inf" / "-0.0" (JSON has no literal for them).
nlohmann::json encode_special_floats(const nlohmann::json& j);

// Whether s is one of the strings encode_special_floats writes; if so *out is its value.
bool decode_special_float(const std::string& s, double* out);

// The text of j (special floats encoded first), ending in a newline.
std::string format_json(const nlohmann::json& j);

}  // namespace graft::harness
