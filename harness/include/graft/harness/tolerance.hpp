#pragma once
// Numeric tolerances for snapshot comparison: |actual - expected| <= atol +
// rtol * |expected|. Defaults depend on the dtype (torch.testing's values,
// DESIGN.md "Metrics"), read from the nearest enclosing object's "dtype" field;
// a snapshot's top-level "tolerances" object overrides them per field path:
//
//   "tolerances": { "events[*].metrics.rel_diff": {"rtol": 0, "atol": 1e-4} }
//
// Paths are written as the diff prints them (events[3].metrics.rel_diff); in a
// glob `*` matches any run of characters except '.', `**` any run at all. The
// longest matching glob wins. Integers always compare exactly.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace graft::harness {

struct tolerance {
  double rtol = 0;
  double atol = 0;
  bool allows(double expected, double actual) const;
};

// fp32 (float32/float/fp32) 1.3e-6/1e-5, bf16 1.6e-2/1e-5, fp16 1e-3/1e-5,
// fp64 1e-7/1e-7; anything else (or no dtype) is fp32.
tolerance default_tolerance(std::string_view dtype);

// Whether path matches glob (see above).
bool path_matches(std::string_view glob, std::string_view path);

class tolerance_policy {
 public:
  tolerance_policy() = default;
  // From a "tolerances" object; throws snapshot_error naming `where` and the
  // key when an entry is not {"rtol": number >= 0, "atol": number >= 0}.
  static tolerance_policy from_json(const nlohmann::json& tolerances, const std::string& where);

  // The tolerance of the number at path, inside an object whose dtype is `dtype` (maybe empty).
  tolerance for_path(std::string_view path, std::string_view dtype) const;

 private:
  struct rule {
    std::string glob;
    tolerance tol;
  };
  std::vector<rule> rules_;
};

}  // namespace graft::harness
