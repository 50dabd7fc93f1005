#pragma once
// A minimal post-norm Transformer encoder layer with a pluggable feed-forward block:
//   x = LayerNorm(x + Dropout(SelfAttention(x)));  x = LayerNorm(x + Dropout(FFN(x)))
// FFN is "ffn" (Linear-ReLU-Dropout-Linear, Vaswani et al.) or "self_iru" (the
// non-autoregressive Self-IRU of Zhang et al. (2021), App. A.1, models/self_iru_feed_forward.h).
// Causal (options.causal): step t attends to steps up to t only, and the layer carries as state
// every input it has seen, [inputs (B, P, d_model), their pad mask (B, P) bool], so a decoder can run
// it one step at a time. Not causal (the default): every step attends to every real step.
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <string>

#include "models/layers/self_iru_feed_forward.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct TransformerEncoderLayerOptions {
  int64_t d_model = 256;
  int64_t heads = 4;
  std::string ffn = "ffn";  // "ffn" or "self_iru"
  int64_t ffn_hidden = 1024;  // "ffn" only
  int64_t self_iru_depth = 2;  // "self_iru" only
  double dropout = 0.1;
  bool causal = false;
};

class TransformerEncoderLayerImpl : public StackableLayer {
 public:
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);
  // x (L, B, d_model); mask_pad (L, B) bool, true = pad, or undefined.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask_pad = {}) {
    return forwardSequence(x, mask_pad, {}).features;
  }
  // The same after the inputs held in `state` (causal only; empty = none).
  SequenceOutput forwardSequence(const torch::Tensor& x, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.d_model; }
  bool causal() const override { return options_.causal; }
  const TransformerEncoderLayerOptions& options() const { return options_; }

  torch::nn::MultiheadAttention attention{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
  torch::nn::Linear ffn_in{nullptr}, ffn_out{nullptr};
  SelfIruFeedForward self_iru{nullptr};

 private:
  torch::Tensor feedForward(const torch::Tensor& x);
  TransformerEncoderLayerOptions options_;
};
TORCH_MODULE(TransformerEncoderLayer);

}  // namespace recurlab::models
