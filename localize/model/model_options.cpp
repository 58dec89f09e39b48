#include "model.hpp"

#include <graft/error.hpp>

namespace graft::harness::localize {

namespace {

// The model is small by design (it shows localize at work); settings that
// would take more than this are refused rather than left to the kernel's OOM
// killer, which ends a rank with no message.
constexpr double kMaxPeakBytes = 4.0 * (1 << 30);

// What one rank holds at its peak, in float32 bytes (bfloat16 runs its norms
// and draws in float32 too): the weights, and the largest activations: the alt
// kernels' seq x seq x hidden attention product, the scores and probabilities,
// the MLP's and the logits' rows.
double peak_bytes(const model_options& m) {
  const double vocab = m.vocab, h = m.hidden, heads = m.heads, layers = m.layers, seq = m.seq_len;
  const double weights = 2 * vocab * h + layers * (12 * h * h + 2 * h) + h;
  const double activations = seq * seq * h + 2 * heads * seq * seq + seq * (4 * h + vocab);
  return 4 * (weights + activations);
}

void require(bool ok, const std::string& message) {
  if (!ok) GRAFT_THROW(config_error, message);
}

}  // namespace

void model_options::validate() const {
  require(vocab > 0, "--vocab " + std::to_string(vocab) + ": must be positive");
  require(hidden > 1, "--hidden " + std::to_string(hidden) + ": must be at least 2");
  require(heads > 0 && hidden % heads == 0, "--heads " + std::to_string(heads) + ": must divide --hidden " +
                                                std::to_string(hidden) + "; pick a divisor of it");
  require(layers > 0, "--layers " + std::to_string(layers) + ": must be positive");
  require(seq_len > 0, "--seq-len " + std::to_string(seq_len) + ": must be positive");
  require(bug == bug_kind::none || (bug_layer >= 0 && bug_layer < layers),
          "--bug-layer " + std::to_string(bug_layer) + ": must be in [0, " + std::to_string(layers) +
              ") for --layers " + std::to_string(layers));
  require(buggy_norm_eps > 0, "--bug-eps: must be positive (it is a norm's epsilon)");
  const double bytes = peak_bytes(*this);
  require(bytes <= kMaxPeakBytes,
          "--layers " + std::to_string(layers) + " --hidden " + std::to_string(hidden) + " --vocab " +
              std::to_string(vocab) + " --seq-len " + std::to_string(seq_len) + ": the built-in model would need " +
              std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB per rank, more than its " +
              std::to_string(static_cast<long long>(kMaxPeakBytes / (1 << 20))) +
              " MiB; make it smaller, or localize your own programs with --baseline-cmd/--target-cmd");
  require(dtype == at::kFloat || dtype == at::kBFloat16,
          "--dtype: the model runs in float32 or bfloat16 only; pass one of those");
}

}  // namespace graft::harness::localize
