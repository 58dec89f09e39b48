#pragma once
// The bugs the model can plant, by name: the values graft_model takes for --bug.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graft::harness::localize {

enum class bug_kind {
  none,
  norm_eps,     // both norms of the layer use a large eps (1e-1 by default) instead of 1e-6
  attn_scale,   // attention scores scaled by 1/head_dim instead of 1/sqrt(head_dim)
  mlp_bf16,     // the layer's MLP computed in bfloat16
  no_residual,  // the attention residual is dropped: x = attn(x) instead of x + attn(x)
};

inline const std::vector<std::string>& bug_kind_names() {
  // In enum order.
  static const std::vector<std::string> names{"none", "norm_eps", "attn_scale", "mlp_bf16", "no_residual"};
  return names;
}

inline std::string_view to_string(bug_kind kind) { return bug_kind_names().at(static_cast<std::size_t>(kind)); }

inline std::optional<bug_kind> parse_bug_kind(std::string_view text) {
  const auto& names = bug_kind_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (text == names[i]) return static_cast<bug_kind>(i);
  }
  return std::nullopt;
}

}  // namespace graft::harness::localize
