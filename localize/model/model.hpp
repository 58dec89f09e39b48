#pragma once
// A small deterministic transformer for localize: embedding, N blocks of
// RMSNorm -> causal multi-head attention -> residual -> RMSNorm -> MLP ->
// residual, then a final norm and a projection to logits. Weights and input
// tokens come from one seed, generated in float32 and then cast, so both sides
// of a graft world hold the same model for the same seed and sizes.
//
// forward() calls the grafter at every dump point with tags
// {"name": ..., "layer_id": L}: layer_input, attn_output, mlp_output and
// layer_output per layer, then logits with layer_id = layers. A grafted
// tensor is overwritten in place and the rest of the forward uses it, which is
// what lets localize feed one layer the baseline's input.
//
// One bug can be planted at one layer (see bug_kind); kernels::alt computes the
// same function with another reduction order, a valid variant for calibration.
// Not thread-safe; forward() throws only on libtorch errors.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/ATen.h>

#include <graft/grafter.hpp>

#include "model_bugs.hpp"

namespace graft::harness::localize {

// Kernel choice: both are correct; alt changes reduction orders only.
enum class kernels { standard, alt };

struct model_options {
  int vocab = 64;
  int hidden = 32;
  int heads = 4;
  int layers = 4;
  int seq_len = 8;
  std::uint64_t seed = 0;
  at::ScalarType dtype = at::kFloat;  // float32 or bfloat16
  bug_kind bug = bug_kind::none;
  int bug_layer = 0;
  // The epsilon of the norm_eps bug: large next to the mean square of a
  // unit-scale residual stream, so every normalised value moves by percents.
  double buggy_norm_eps = 1e-1;
  kernels kernel_choice = kernels::standard;

  // Throws graft::config_error naming the option and the fix.
  void validate() const;
};

class model {
 public:
  explicit model(model_options options);

  // Runs the model once over its seeded tokens, calling g at every dump
  // point; returns the logits (seq_len x vocab, in the model's dtype).
  at::Tensor forward(grafter& g) const;

  const model_options& options() const { return options_; }

 private:
  struct layer_weights {
    at::Tensor norm1, wq, wk, wv, wo, norm2, w1, w2;
  };
  at::Tensor attention(const at::Tensor& h, const layer_weights& w, int layer) const;
  at::Tensor mlp(const at::Tensor& h, const layer_weights& w, int layer) const;
  at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, int layer) const;
  bool bug_at(bug_kind kind, int layer) const;

  model_options options_;
  at::Tensor tokens_;
  at::Tensor embedding_;
  std::vector<layer_weights> layers_;
  at::Tensor final_norm_;
  at::Tensor unembedding_;
};

}  // namespace graft::harness::localize
