#include "models/layers/transformer_encoder_layer.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options)
    : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.d_model > 0 && o.heads > 0 && o.d_model % o.heads == 0,
              "TransformerEncoderLayer: d_model (", o.d_model,
              ") must be a positive multiple of heads (", o.heads, ")");
  TORCH_CHECK(o.dropout >= 0 && o.dropout < 1,
              "TransformerEncoderLayer: dropout must be in [0, 1), got ", o.dropout);
  TORCH_CHECK(o.ffn == "ffn" || o.ffn == "self_iru",
              "TransformerEncoderLayer: ffn must be 'ffn' or 'self_iru', got '", o.ffn, "'");
  attention = register_module(
      "attention", torch::nn::MultiheadAttention(
                       torch::nn::MultiheadAttentionOptions(o.d_model, o.heads).dropout(o.dropout)));
  norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.d_model})));
  norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.d_model})));
  if (o.ffn == "ffn") {
    TORCH_CHECK(o.ffn_hidden > 0, "TransformerEncoderLayer: ffn_hidden must be positive");
    ffn_in = register_module("ffn_in", torch::nn::Linear(o.d_model, o.ffn_hidden));
    ffn_out = register_module("ffn_out", torch::nn::Linear(o.ffn_hidden, o.d_model));
  } else {
    self_iru = register_module("self_iru", SelfIruFeedForward(o.d_model, o.self_iru_depth));
  }
}

torch::Tensor TransformerEncoderLayerImpl::feedForward(const torch::Tensor& x) {
  if (self_iru) return self_iru->forward(x);
  return ffn_out(torch::dropout(torch::relu(ffn_in(x)), options_.dropout, is_training()));
}

SequenceOutput TransformerEncoderLayerImpl::forwardSequence(const torch::Tensor& x,
                                                           const torch::Tensor& mask_pad,
                                                           const SequenceState& state) {
  const auto& o = options_;
  TORCH_CHECK(x.dim() == 3 && x.size(2) == o.d_model,
              "TransformerEncoderLayer: input must be (length, batch, ", o.d_model, "), got ",
              x.sizes());
  TORCH_CHECK(o.causal || state.empty(),
              "TransformerEncoderLayer: a non-causal layer attends to every step and carries no "
              "state, but got one (set causal to encode a sequence in segments)");
  const int64_t L = x.size(0), B = x.size(1);
  // key_padding_mask is (batch, keys), true = ignore.
  torch::Tensor key_mask = mask_pad.defined() ? mask_pad.to(torch::kBool).t() : torch::Tensor();
  SequenceOutput out;
  torch::Tensor keys = x, attn_mask;
  if (o.causal) {
    const torch::Tensor past = state.tensor(0, "TransformerEncoderLayer");  // (B, P, d)
    int64_t P = 0;
    torch::Tensor past_pad = torch::zeros({B, 0}, x.options().dtype(torch::kBool));
    if (past.defined()) {
      const torch::Tensor past_mask = state.tensor(1, "TransformerEncoderLayer");
      TORCH_CHECK(past.dim() == 3 && past.size(0) == B && past.size(2) == o.d_model &&
                      past_mask.defined() &&
                      past_mask.sizes() == c10::IntArrayRef({B, past.size(1)}),
                  "TransformerEncoderLayer: the state must hold inputs (batch = ", B, ", steps, ",
                  o.d_model, ") and their pad mask (batch, steps)");
      P = past.size(1);
      keys = torch::cat({past.transpose(0, 1), x});
      past_pad = past_mask.to(torch::kBool);
    }
    const torch::Tensor new_pad = key_mask.defined()
                                      ? key_mask
                                      : torch::zeros({B, L}, x.options().dtype(torch::kBool));
    if (P > 0 || key_mask.defined()) key_mask = torch::cat({past_pad, new_pad}, 1);
    // Query i (absolute step P + i) sees keys 0..P + i.
    attn_mask = torch::ones({L, P + L}, x.options().dtype(torch::kBool)).triu(P + 1);
    attn_mask = torch::zeros({L, P + L}, x.options()).masked_fill(attn_mask, -INFINITY);
    out.state.tensors = {keys.transpose(0, 1), torch::cat({past_pad, new_pad}, 1)};
  }
  auto att = std::get<0>(
      attention->forward(x, keys, keys, key_mask, /*need_weights=*/false, attn_mask));
  torch::Tensor y = norm1(x + torch::dropout(att, o.dropout, is_training()));
  out.features = norm2(y + torch::dropout(feedForward(y), o.dropout, is_training()));
  return out;
}

}  // namespace recurlab::models
