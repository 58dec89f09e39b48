#include <graft/harness/localize/model.hpp>

#include <graft/error.hpp>

namespace graft::harness::localize {

namespace {

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
  require(dtype == at::kFloat || dtype == at::kBFloat16,
          "--dtype: the model runs in float32 or bfloat16 only; pass one of those");
  require(buggy_norm_eps > 0, "--bug-eps: must be positive (it is a norm's epsilon)");
  require(bug == bug_kind::none || (bug_layer >= 0 && bug_layer < layers),
          "--bug-layer " + std::to_string(bug_layer) + ": must be in [0, " + std::to_string(layers) +
              ") for --layers " + std::to_string(layers));
}

}  // namespace graft::harness::localize
