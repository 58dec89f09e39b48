#include "model.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <ATen/CPUGeneratorImpl.h>

#include <graft/error.hpp>

namespace graft::harness::localize {

namespace {

constexpr double kNormEps = 1e-6;
constexpr int kMlpExpansion = 4;

// Scaled Gaussian weights, drawn in float32 so that the draw does not depend
// on the dtype the model runs in.
at::Tensor gaussian(at::Generator& gen, at::IntArrayRef shape, double scale, at::ScalarType dtype) {
  return (at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat)) * scale).to(dtype);
}

// a @ b with the contraction split in two halves: the same product summed in
// another order (the alt kernel).
at::Tensor split_matmul(const at::Tensor& a, const at::Tensor& b) {
  const std::int64_t half = a.size(-1) / 2;
  return a.narrow(-1, 0, half).matmul(b.narrow(0, 0, half)) +
         a.narrow(-1, half, a.size(-1) - half).matmul(b.narrow(0, half, b.size(0) - half));
}

}  // namespace

model::model(model_options options) : options_(std::move(options)) {
  options_.validate();
  at::Generator gen = at::detail::createCPUGenerator(options_.seed);
  const auto dtype = options_.dtype;
  const int h = options_.hidden;
  const double in_scale = 1.0 / std::sqrt(static_cast<double>(h));
  const double mlp_out_scale = 1.0 / std::sqrt(static_cast<double>(h * kMlpExpansion));

  tokens_ = at::randint(options_.vocab, {options_.seq_len}, gen, at::TensorOptions().dtype(at::kLong));
  embedding_ = gaussian(gen, {options_.vocab, h}, 1.0, dtype);
  for (int layer = 0; layer < options_.layers; ++layer) {
    layer_weights w;
    w.norm1 = (1.0 + gaussian(gen, {h}, 0.1, at::kFloat)).to(dtype);
    w.wq = gaussian(gen, {h, h}, in_scale, dtype);
    w.wk = gaussian(gen, {h, h}, in_scale, dtype);
    w.wv = gaussian(gen, {h, h}, in_scale, dtype);
    w.wo = gaussian(gen, {h, h}, in_scale, dtype);
    w.norm2 = (1.0 + gaussian(gen, {h}, 0.1, at::kFloat)).to(dtype);
    w.w1 = gaussian(gen, {h, h * kMlpExpansion}, in_scale, dtype);
    w.w2 = gaussian(gen, {h * kMlpExpansion, h}, mlp_out_scale, dtype);
    layers_.push_back(std::move(w));
  }
  final_norm_ = (1.0 + gaussian(gen, {h}, 0.1, at::kFloat)).to(dtype);
  unembedding_ = gaussian(gen, {h, options_.vocab}, in_scale, dtype);
}

bool model::bug_at(bug_kind kind, int layer) const {
  return options_.bug == kind && options_.bug_layer == layer;
}

at::Tensor model::rms_norm(const at::Tensor& x, const at::Tensor& weight, int layer) const {
  const double eps = bug_at(bug_kind::norm_eps, layer) ? options_.buggy_norm_eps : kNormEps;
  // In float32 whatever the model's dtype, as production norms do.
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor mean_square = options_.kernel_choice == kernels::alt
                                     ? xf.pow(2).sum(-1, /*keepdim=*/true) / static_cast<double>(xf.size(-1))
                                     : xf.square().mean(-1, /*keepdim=*/true);
  return (xf * at::rsqrt(mean_square + eps)).to(x.scalar_type()) * weight;
}

at::Tensor model::attention(const at::Tensor& h, const layer_weights& w, int layer) const {
  const std::int64_t seq = h.size(0);
  const std::int64_t heads = options_.heads;
  const std::int64_t head_dim = options_.hidden / options_.heads;
  const auto split_heads = [&](const at::Tensor& t) { return t.view({seq, heads, head_dim}).transpose(0, 1); };
  const at::Tensor q = split_heads(h.matmul(w.wq));
  const at::Tensor k = split_heads(h.matmul(w.wk));
  const at::Tensor v = split_heads(h.matmul(w.wv));

  const double scale = bug_at(bug_kind::attn_scale, layer) ? 1.0 / static_cast<double>(head_dim)
                                                           : 1.0 / std::sqrt(static_cast<double>(head_dim));
  const bool alt = options_.kernel_choice == kernels::alt;
  // alt: scores as an elementwise product summed over head_dim, and a softmax
  // written out, instead of one batched matmul and the fused softmax.
  at::Tensor scores = alt ? (q.unsqueeze(2) * k.unsqueeze(1)).sum(-1) * scale : q.matmul(k.transpose(-2, -1)) * scale;
  const at::Tensor future = at::ones({seq, seq}, at::TensorOptions().dtype(at::kBool)).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  at::Tensor probs;
  if (alt) {
    const at::Tensor shifted = (scores - std::get<0>(scores.max(-1, /*keepdim=*/true))).exp();
    probs = shifted / shifted.sum(-1, /*keepdim=*/true);
  } else {
    probs = at::softmax(scores, -1);
  }
  const at::Tensor mixed = probs.matmul(v).transpose(0, 1).reshape({seq, options_.hidden});
  return alt ? split_matmul(mixed, w.wo) : mixed.matmul(w.wo);
}

at::Tensor model::mlp(const at::Tensor& h, const layer_weights& w, int layer) const {
  const bool in_bf16 = bug_at(bug_kind::mlp_bf16, layer);
  const at::ScalarType compute = in_bf16 ? at::kBFloat16 : h.scalar_type();
  const at::Tensor x = h.to(compute);
  const at::Tensor w1 = w.w1.to(compute);
  const at::Tensor w2 = w.w2.to(compute);
  const bool alt = options_.kernel_choice == kernels::alt;
  const at::Tensor up = at::gelu(alt ? split_matmul(x, w1) : x.matmul(w1));
  return (alt ? split_matmul(up, w2) : up.matmul(w2)).to(h.scalar_type());
}

at::Tensor model::forward(grafter& g) const {
  // index_select makes a fresh tensor: grafting into it touches no weight.
  at::Tensor x = embedding_.index_select(0, tokens_);
  for (int layer = 0; layer < options_.layers; ++layer) {
    const layer_weights& w = layers_[static_cast<std::size_t>(layer)];
    g.maybe_intercept(x, {{"name", "layer_input"}, {"layer_id", layer}});
    const at::Tensor attn = attention(rms_norm(x, w.norm1, layer), w, layer);
    g.maybe_intercept(attn, {{"name", "attn_output"}, {"layer_id", layer}});
    const at::Tensor mid = bug_at(bug_kind::no_residual, layer) ? attn : x + attn;
    const at::Tensor out = mlp(rms_norm(mid, w.norm2, layer), w, layer);
    g.maybe_intercept(out, {{"name", "mlp_output"}, {"layer_id", layer}});
    x = mid + out;
    g.maybe_intercept(x, {{"name", "layer_output"}, {"layer_id", layer}});
  }
  at::Tensor logits = rms_norm(x, final_norm_, options_.layers).matmul(unembedding_);
  g.maybe_intercept(logits, {{"name", "logits"}, {"layer_id", options_.layers}});
  return logits;
}

}  // namespace graft::harness::localize
