#pragma once
// One Real-Gated Linear Recurrent Unit layer (De et al. 2024, "Griffin: Mixing Gated Linear
// Recurrences with Local Attention for Efficient Language Models", §2.4), on the input mapped
// to the recurrence's width, x̃_t = W_in x_t + b_in (or the input itself, without
// input_projection, as in Griffin's recurrent block: models/layers/rg_lru_block.h):
//   r_t = σ(W_a x̃_t + b_a),  i_t = σ(W_x x̃_t + b_x),  a_t = a^{c·r_t},  a = σ(Λ)
//   h_t = a_t ⊙ h_{t-1} + sqrt(1 - a_t²) ⊙ (i_t ⊙ x̃_t)
// run by kernels/linear_recurrence.h. As the paper, log a_t = -c·r_t·softplus(-Λ) is computed
// in log space, c = 8 by default, and Λ starts with a^c uniform in [0.9, 0.999]; 1 - a_t² is
// -expm1(2·log a_t); its square root's derivative is bounded by 1000 where a_t nears 1, as
// google-deepmind/recurrentgemma bounds it (the forward value is exact). At a sequence's first
// step (no state given) the input is not scaled, h_1 = i_1 ⊙ x̃_1, as recurrentgemma resets the
// scale at a document's first token. Causal (unidirectional, as the paper). W_a, W_x are dense
// here (block-diagonal per head in Griffin). Alone, a stack of these layers is linear in its input but for the gates, and its
// gain sqrt((1 + a)/(1 - a)) on slowly varying inputs compounds over layers: the "rg_lru"
// encoder wraps each in Griffin's residual recurrent block instead.
// State: [last h (B, d)].
//   weight_in (input, d), bias_in (d) (with input_projection), weight_gates (d, 2·d) =
//   [W_a | W_x], bias_gates (2·d), decay_logit (d) = Λ
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct RgLruLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  double decay_scale = 8.0;  // c
  // a_t = 2·a^{c·r_t} − 1, its input scaled by sqrt(1 − a_t²) of that a_t
  // (models/layers/signed_decay.h)
  bool negative_eigenvalues = false;
  bool input_projection = true;  // false: x̃ = x (input_size must equal hidden_size)
};

class RgLruLayerImpl : public StackableLayer {
 public:
  explicit RgLruLayerImpl(RgLruLayerOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  const RgLruLayerOptions& options() const { return options_; }

  torch::Tensor weight_in, bias_in, weight_gates, bias_gates, decay_logit;

 private:
  RgLruLayerOptions options_;
};
TORCH_MODULE(RgLruLayer);

}  // namespace recurlab::models
