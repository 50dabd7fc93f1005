#include "models/layers/multi_head_attention.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace recurlab::models {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(MultiHeadAttentionOptions options)
    : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.d_model > 0 && o.heads > 0 && o.d_model % o.heads == 0,
              "MultiHeadAttention: d_model (", o.d_model, ") must be a positive multiple of heads (",
              o.heads, ")");
  TORCH_CHECK(o.attention_dropout >= 0 && o.attention_dropout < 1,
              "MultiHeadAttention: attention_dropout must be in [0, 1), got ", o.attention_dropout);
  q_proj = register_module("q_proj", torch::nn::Linear(o.d_model, o.d_model));
  k_proj = register_module("k_proj", torch::nn::Linear(o.d_model, o.d_model));
  v_proj = register_module("v_proj", torch::nn::Linear(o.d_model, o.d_model));
  out_proj = register_module("out_proj", torch::nn::Linear(o.d_model, o.d_model));
  reset_parameters();
}

void MultiHeadAttentionImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double gain = 1.0 / std::sqrt(2.0);
  torch::nn::init::xavier_uniform_(q_proj->weight, gain);
  torch::nn::init::xavier_uniform_(k_proj->weight, gain);
  torch::nn::init::xavier_uniform_(v_proj->weight, gain);
  torch::nn::init::xavier_uniform_(out_proj->weight);
  out_proj->bias.zero_();
}

AttentionResult MultiHeadAttentionImpl::attend(const torch::Tensor& query,
                                               const torch::Tensor& keys,
                                               const torch::Tensor& values,
                                               const torch::Tensor& key_pad,
                                               int64_t causal_offset, bool need_weights) {
  const auto& o = options_;
  TORCH_CHECK(query.dim() == 3 && query.size(2) == o.d_model,
              "MultiHeadAttention: query must be (T, B, ", o.d_model, "), got ", query.sizes());
  const int64_t T = query.size(0), B = query.size(1), S = keys.size(1);
  const int64_t H = o.heads, hd = o.d_model / H;
  TORCH_CHECK(keys.dim() == 3 && keys.size(0) == B && keys.size(2) == o.d_model &&
                  values.sizes() == keys.sizes(),
              "MultiHeadAttention: keys and values must be (B, S, ", o.d_model, "), got ",
              keys.sizes(), " and ", values.sizes());
  // (B·H, T, hd) x (B·H, hd, S)
  torch::Tensor q = (q_proj(query) * (1.0 / std::sqrt(static_cast<double>(hd))))
                        .reshape({T, B * H, hd})
                        .transpose(0, 1);
  torch::Tensor k = keys.reshape({B, S, H, hd}).transpose(1, 2).reshape({B * H, S, hd});
  torch::Tensor v = values.reshape({B, S, H, hd}).transpose(1, 2).reshape({B * H, S, hd});
  torch::Tensor scores = torch::bmm(q, k.transpose(1, 2)).view({B, H, T, S});
  const double minus_inf = -std::numeric_limits<double>::infinity();
  if (key_pad.defined()) {
    TORCH_CHECK(key_pad.dim() == 2 && key_pad.size(0) == B && key_pad.size(1) == S,
                "MultiHeadAttention: key_pad must be (B, S) = (", B, ", ", S, "), got ",
                key_pad.sizes());
    scores = scores.masked_fill(key_pad.to(torch::kBool).view({B, 1, 1, S}), minus_inf);
  }
  if (causal_offset >= 0) {
    // key j is in the future of query t when j > causal_offset + t
    torch::Tensor t = torch::arange(T, query.options().dtype(torch::kLong)).view({T, 1});
    torch::Tensor j = torch::arange(S, query.options().dtype(torch::kLong)).view({1, S});
    scores = scores.masked_fill((j > t + causal_offset).view({1, 1, T, S}), minus_inf);
  }
  torch::Tensor probs = torch::softmax(scores, -1);
  torch::Tensor dropped = torch::dropout(probs, o.attention_dropout, is_training());
  torch::Tensor context = torch::bmm(dropped.view({B * H, T, S}), v)  // (B·H, T, hd)
                              .transpose(0, 1)
                              .reshape({T, B, o.d_model});
  AttentionResult result;
  result.output = out_proj(context);
  if (need_weights) result.weights = probs.mean(1);  // (B, T, S)
  return result;
}

AttentionResult MultiHeadAttentionImpl::forward(const torch::Tensor& query,
                                                const torch::Tensor& key,
                                                const torch::Tensor& value,
                                                const torch::Tensor& key_pad, bool causal,
                                                bool need_weights) {
  return attend(query, projectKeys(key), projectValues(value),
                key_pad.defined() ? key_pad.t() : key_pad, causal ? 0 : -1, need_weights);
}

}  // namespace recurlab::models
