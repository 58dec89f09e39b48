#include <graft/harness/grafter_kind.hpp>

#include <algorithm>
#include <array>

namespace graft::harness {

namespace {

// Of the grafter settings a scenario may give (fixtures/README.md), sglang's
// DumperConfig has all but graft's own transforms; measure only changes
// graft's events, which sglang's grafter does not write.
std::optional<std::string> sglang_not_applicable(const scenario& s) {
  if (!s.grafter.contains("transform_path")) return std::nullopt;
  const nlohmann::json& value = s.grafter["transform_path"];
  const std::string spec = value.is_string() ? value.get<std::string>() : value.dump();
  return std::string(spec.rfind("builtin:", 0) == 0 ? "graft's built-in" : "a C++ plugin") + " transform (" + spec +
         "); sglang's grafter loads Python functions only";
}

struct kind_names {
  grafter_kind kind;
  std::string_view name;     // the --grafter value
  std::string_view display;  // the table's column
};

constexpr std::array<kind_names, 3> kKinds = {{{grafter_kind::cpp, "cpp", "graft C++"},
                                                {grafter_kind::python, "python", "graft Python"},
                                                {grafter_kind::sglang, "sglang", "sglang"}}};

const kind_names& names_of(grafter_kind kind) {
  return *std::find_if(kKinds.begin(), kKinds.end(), [kind](const kind_names& k) { return k.kind == kind; });
}

}  // namespace

std::string_view to_string(grafter_kind kind) { return names_of(kind).name; }

std::string_view display_name(grafter_kind kind) { return names_of(kind).display; }

std::optional<grafter_kind> parse_grafter_kind(std::string_view name) {
  for (const kind_names& k : kKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

const std::vector<grafter_kind>& all_grafter_kinds() {
  static const std::vector<grafter_kind> kinds = [] {
    std::vector<grafter_kind> out;
    for (const kind_names& k : kKinds) out.push_back(k.kind);
    return out;
  }();
  return kinds;
}

bool emits_graft_events(grafter_kind kind) { return kind != grafter_kind::sglang; }

std::optional<std::string> not_applicable_reason(const scenario& s, grafter_kind kind) {
  if (kind == grafter_kind::cpp) return std::nullopt;
  if (s.cuda_ranks() > 0) return std::string("the Python workers make CPU tensors only; this scenario has CUDA ranks");
  if (kind == grafter_kind::sglang) return sglang_not_applicable(s);
  return std::nullopt;
}

}  // namespace graft::harness
