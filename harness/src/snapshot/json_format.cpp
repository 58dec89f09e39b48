#include <graft/harness/json_format.hpp>

#include <cmath>
#include <cstdio>

namespace graft::harness {

namespace {

constexpr std::size_t kInlineArrayWidth = 100;

bool is_scalar(const nlohmann::json& j) { return !j.is_object() && !j.is_array(); }

std::string scalar_text(const nlohmann::json& j) {
  if (j.is_number_float()) return format_float(j.get<double>());
  return j.dump();
}

void write(const nlohmann::json& j, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
  if (j.is_object()) {
    if (j.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& [key, value] : j.items()) {  // nlohmann::json keeps keys sorted
      if (!first) out += ",\n";
      first = false;
      out += inner + nlohmann::json(key).dump() + ": ";
      write(value, indent + 1, out);
    }
    out += "\n" + pad + "}";
    return;
  }
  if (j.is_array()) {
    if (j.empty()) {
      out += "[]";
      return;
    }
    bool all_scalars = true;
    for (const auto& item : j) all_scalars = all_scalars && is_scalar(item);
    if (all_scalars) {
      std::string line = "[";
      for (std::size_t i = 0; i < j.size(); ++i) line += (i ? ", " : "") + scalar_text(j[i]);
      line += "]";
      if (line.size() <= kInlineArrayWidth) {
        out += line;
        return;
      }
    }
    out += "[\n";
    for (std::size_t i = 0; i < j.size(); ++i) {
      out += inner;
      write(j[i], indent + 1, out);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += pad + "]";
    return;
  }
  out += scalar_text(j);
}

}  // namespace

std::string format_float(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

std::string format_number(double value) {
  const nlohmann::json encoded = encode_special_floats(value);
  return encoded.is_string() ? encoded.get<std::string>() : format_float(value);
}

nlohmann::json encode_special_floats(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : j.items()) out[key] = encode_special_floats(value);
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : j) out.push_back(encode_special_floats(item));
    return out;
  }
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
    if (v == 0.0 && std::signbit(v)) return "-0.0";
  }
  return j;
}

bool decode_special_float(const std::string& s, double* out) {
  if (s == "NaN") *out = std::nan("");
  else if (s == "Inf") *out = HUGE_VAL;
  else if (s == "-Inf") *out = -HUGE_VAL;
  else if (s == "-0.0") *out = -0.0;
  else return false;
  return true;
}

std::string format_json(const nlohmann::json& j) {
  std::string out;
  write(encode_special_floats(j), 0, out);
  out += "\n";
  return out;
}

}  // namespace graft::harness
