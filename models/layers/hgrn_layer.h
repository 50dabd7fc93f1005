#pragma once
// The token mixer of one HGRN layer (Qin, Yang & Zhong 2023, "Hierarchically Gated Recurrent
// Neural Network for Sequence Modeling", §3): a gated linear recurrence whose forget gate is
// bounded below by a learned, layer-dependent γ (models/encoders/hgrn_encoder.h computes it):
//   μ_t = σ(W_f x_t + b_f),  λ_t = γ + (1 - γ) ⊙ μ_t,  c_t = SiLU(W_c x_t + b_c)
//   h_t = λ_t ⊙ h_{t-1} + (1 - λ_t) ⊙ c_t                  (input and forget gates tied)
//   g_t = σ(W_g x_t + b_g),  y_t = W_o LayerNorm(g_t ⊙ h_t) + b_o
// run by kernels/linear_recurrence.h with a_t = λ_t, b_t = (1 - γ)·σ(-(W_f x_t + b_f)) ⊙ c_t
// (1 - λ_t without cancellation). Real-valued: the paper's complex phase exp(iθ) would couple
// two units per step, which the elementwise op does not do. Causal (as the paper).
// State: [last h (B, d)].
//   weight (input, 3·d) = [f | c | g], bias (3·d), layer_norm over d, weight_out (d, d),
//   bias_out (d)
// gated_rms_norm: y_t = W_o (RMSNorm(h_t) ⊙ w ⊙ Swish(W_g x_t)), norm_weight w (d) in place of
// layer_norm, as flash-linear-attention's HGRNAttention (fla-org/flash-linear-attention)
// gates its output; with bias false there is no bias nor bias_out (that layer has none).
#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <utility>

namespace recurlab::models {

struct HgrnLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  bool bias = true;
  bool gated_rms_norm = false;
  bool negative_eigenvalues = false;  // a_t = 2λ_t - 1, b_t as before (signed_decay.h)
};

class HgrnLayerImpl : public torch::nn::Module {
 public:
  explicit HgrnLayerImpl(HgrnLayerOptions options);
  void reset_parameters();

  // input (L, B, input_size); lower_bound γ (d) in [0, 1); mask_pad (L, B) nonzero = pad or
  // undefined; h0 (B, d) or undefined. Returns (y (L, B, d), last h (B, d)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& lower_bound,
                                                  const torch::Tensor& mask_pad,
                                                  const torch::Tensor& h0);
  const HgrnLayerOptions& options() const { return options_; }

  torch::Tensor weight, bias, weight_out, bias_out;  // biases undefined without options.bias
  torch::nn::LayerNorm layer_norm{nullptr};          // null with gated_rms_norm
  torch::Tensor norm_weight;                         // only with gated_rms_norm

 private:
  HgrnLayerOptions options_;
};
TORCH_MODULE(HgrnLayer);

}  // namespace recurlab::models
