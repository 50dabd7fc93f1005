#include "models/transformer_encoder_layer.h"

#include <torch/torch.h>

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

torch::Tensor TransformerEncoderLayerImpl::forward(const torch::Tensor& x,
                                                   const torch::Tensor& mask_pad) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == options_.d_model,
              "TransformerEncoderLayer: input must be (length, batch, ", options_.d_model,
              "), got ", x.sizes());
  // key_padding_mask is (batch, length), true = ignore.
  const torch::Tensor key_mask = mask_pad.defined() ? mask_pad.to(torch::kBool).t() : torch::Tensor();
  auto att = std::get<0>(attention->forward(x, x, x, key_mask, /*need_weights=*/false));
  torch::Tensor y = norm1(x + torch::dropout(att, options_.dropout, is_training()));
  return norm2(y + torch::dropout(feedForward(y), options_.dropout, is_training()));
}

}  // namespace recurlab::models
