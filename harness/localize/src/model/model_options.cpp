#include <graft/harness/localize/model.hpp>
#include <graft/harness/localize/model_settings.hpp>

#include <graft/error.hpp>

namespace graft::harness::localize {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) GRAFT_THROW(config_error, message);
}

}  // namespace

void model_options::validate() const {
  const auto problem = model_settings_problem(
      {vocab, hidden, heads, layers, seq_len, bug != bug_kind::none, bug_layer, buggy_norm_eps});
  require(!problem, problem.value_or(""));
  require(dtype == at::kFloat || dtype == at::kBFloat16,
          "--dtype: the model runs in float32 or bfloat16 only; pass one of those");
}

}  // namespace graft::harness::localize
