#pragma once
// The localize model's numeric settings (sizes, the bug's layer and epsilon),
// checked without libtorch so that the localize command refuses a bad
// --layers or --bug-layer before it starts any process (the model checks the
// same when it is built).

#include <optional>
#include <string>

namespace graft::harness::localize {

struct model_settings {
  int vocab = 64, hidden = 32, heads = 4, layers = 4, seq_len = 8;
  bool has_bug = false;
  int bug_layer = 0;
  double bug_eps = 1e-1;  // the norm_eps bug's epsilon
};

// The first problem, naming the option and the fix; nullopt when valid.
inline std::optional<std::string> model_settings_problem(const model_settings& m) {
  if (m.vocab <= 0) return "--vocab " + std::to_string(m.vocab) + ": must be positive";
  if (m.hidden <= 1) return "--hidden " + std::to_string(m.hidden) + ": must be at least 2";
  if (m.heads <= 0 || m.hidden % m.heads != 0) {
    return "--heads " + std::to_string(m.heads) + ": must divide --hidden " + std::to_string(m.hidden) +
           "; pick a divisor of it";
  }
  if (m.layers <= 0) return "--layers " + std::to_string(m.layers) + ": must be positive";
  if (m.seq_len <= 0) return "--seq-len " + std::to_string(m.seq_len) + ": must be positive";
  if (m.has_bug && (m.bug_layer < 0 || m.bug_layer >= m.layers)) {
    return "--bug-layer " + std::to_string(m.bug_layer) + ": must be in [0, " + std::to_string(m.layers) +
           ") for --layers " + std::to_string(m.layers);
  }
  if (!(m.bug_eps > 0)) return "--bug-eps: must be positive (it is a norm's epsilon)";
  return std::nullopt;
}

}  // namespace graft::harness::localize
