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

// What one rank of the model holds at its peak, in float32 bytes (bfloat16
// runs its norms and draws in float32 too): the weights, and the largest
// activations: the alt kernels' seq x seq x hidden attention product, the
// scores and probabilities, the MLP's and the logits' rows.
inline double model_peak_bytes(const model_settings& m) {
  const double vocab = m.vocab, h = m.hidden, heads = m.heads, layers = m.layers, seq = m.seq_len;
  const double weights = 2 * vocab * h + layers * (12 * h * h + 2 * h) + h;
  const double activations = seq * seq * h + 2 * heads * seq * seq + seq * (4 * h + vocab);
  return 4 * (weights + activations);
}

// The model is small by design (it shows localize at work); settings that
// would take more than this are refused rather than left to the kernel's OOM
// killer, which ends a rank with no message.
inline constexpr double kMaxModelPeakBytes = 4.0 * (1 << 30);

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
  if (const double bytes = model_peak_bytes(m); bytes > kMaxModelPeakBytes) {
    return "--layers " + std::to_string(m.layers) + " --hidden " + std::to_string(m.hidden) + " --vocab " +
           std::to_string(m.vocab) + " --seq-len " + std::to_string(m.seq_len) + ": the built-in model would need " +
           std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB per rank, more than its " +
           std::to_string(static_cast<long long>(kMaxModelPeakBytes / (1 << 20))) +
           " MiB; make it smaller, or localize your own programs with --baseline-cmd/--target-cmd";
  }
  return std::nullopt;
}

}  // namespace graft::harness::localize
