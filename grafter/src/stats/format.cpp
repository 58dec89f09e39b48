// Number formatting shared by the metrics and tensor info: Python's "%.6g"
// for log lines, and JSON doubles with the values JSON cannot spell.

#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include <graft/metrics.hpp>

namespace graft {

std::string format_g6(double v) {
  // C's %g matches Python's format(v, ".6g") (exponent of at least two
  // digits, "inf", "-inf") except that it may print a NaN as "-nan".
  if (std::isnan(v)) return "nan";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Inf" : "-Inf";
  if (v == 0 && std::signbit(v)) return "-0.0";
  return v;
}

}  // namespace graft
