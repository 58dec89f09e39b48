#pragma once
// Which grafter plays a scenario's ranks: graft's C++ grafter (graft_worker),
// graft's Python package, or sglang's own _Grafter driven through
// dumper.dump as sglang's model code drives it (both by python/graft/
// scenario_worker.py). The three run the same scenarios; what one of them
// cannot take part in is "not applicable", with the reason.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <graft/harness/scenario.hpp>

namespace graft::harness {

enum class grafter_kind { cpp, python, sglang };

std::string_view to_string(grafter_kind kind);              // "cpp", "python", "sglang"
std::string_view display_name(grafter_kind kind);           // "graft C++", "graft Python", "sglang"
std::optional<grafter_kind> parse_grafter_kind(std::string_view name);
const std::vector<grafter_kind>& all_grafter_kinds();

// Whether the kind's workers make graft events: sglang's grafter logs text
// only, so its results are checked by values and bytes alone.
bool emits_graft_events(grafter_kind kind);

// Why this kind cannot play the scenario (a CUDA rank for the Python
// workers, a transform of graft's for sglang), or nullopt.
std::optional<std::string> not_applicable_reason(const scenario& s, grafter_kind kind);

}  // namespace graft::harness
