#include <graft/harness/grafter_kind.hpp>

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

}  // namespace

std::string_view to_string(grafter_kind kind) {
  switch (kind) {
    case grafter_kind::cpp: return "cpp";
    case grafter_kind::python: return "python";
    case grafter_kind::sglang: return "sglang";
  }
  return "?";
}

std::string_view display_name(grafter_kind kind) {
  switch (kind) {
    case grafter_kind::cpp: return "graft C++";
    case grafter_kind::python: return "graft Python";
    case grafter_kind::sglang: return "sglang";
  }
  return "?";
}

std::optional<grafter_kind> parse_grafter_kind(std::string_view name) {
  for (grafter_kind kind : all_grafter_kinds()) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

const std::vector<grafter_kind>& all_grafter_kinds() {
  static const std::vector<grafter_kind> kinds = {grafter_kind::cpp, grafter_kind::python, grafter_kind::sglang};
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
