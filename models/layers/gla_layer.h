#pragma once
// One gated linear attention layer (Yang et al. 2024, "Gated Linear Attention Transformers with
// Hardware-Efficient Training", §4.4), on kernels/gated_linear_attention.h. With H heads,
// key width d_k = expand_k·d and value width d_v = expand_v·d in all (d = hidden_size, per head
// d_k / H and d_v / H, each rounded to a whole number >= 1 of units per head):
//   q_t = x_t W_q · (d_k / H)^{-1/2},  k_t = x_t W_k,  v_t = x_t W_v,
//   α_t = σ(x_t W_α1 W_α2 + b_α)^{1/τ}   (W_α1 (input, rank), W_α2 (rank, d_k), τ = 16),
//   S^h_t = Diag(α^h_t) S^h_{t-1} + k^h_t^T v^h_t,  o^h_t = q^h_t S^h_t   (per head h),
//   y_t = (RMSNorm(o^1_t) … RMSNorm(o^H_t) ⊙ Swish(x_t W_r)) W_o
// with log α_t = log σ(·)/τ computed as a log-sigmoid. As the paper's layer: the low-rank gate
// (rank 16) and τ = 16 (§4.4), q/k/v/output-gate/output projections without biases, the
// per-head normalization of the output before the Swish output gate; the query scaled by the
// inverse square root of the head's key width as in the paper's attention and the reference
// implementation (fla-org/flash-linear-attention). The normalization is the reference
// implementation's RMSNorm over each head's d_v / H values (one weight vector shared by the
// heads) where the paper writes LayerNorm. The residual connections, pre-norm and SwiGLU
// feed-forward of the GLA Transformer block are not part of the layer (the stack's dropout sits
// between layers, as for the other recurrences). Causal. State: [S (B, H, d_k / H, d_v / H)].
// A one-step input (incremental decoding) takes gatedLinearAttentionStep.
//   weight_q, weight_k (input, d_k), weight_v (input, d_v), weight_gate_down (input, rank),
//   weight_gate_up (rank, d_k), bias_gate (d_k), weight_out_gate (input, d_v),
//   norm_weight (d_v / H), weight_out (d_v, d)
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "kernels/gated_linear_attention.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct GlaLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;  // d: the output width
  int64_t heads = 4;
  double expand_k = 0.5;
  double expand_v = 1.0;
  int64_t gate_rank = 16;
  double gate_normalizer = 16.0;  // τ
  int64_t chunk_length = kernels::kGlaChunkLengthByDevice;

  int64_t keyWidth() const;    // d_k over all heads: heads · max(1, round(hidden·expand_k/heads))
  int64_t valueWidth() const;  // d_v over all heads, the same with expand_v
};

class GlaLayerImpl : public StackableLayer {
 public:
  explicit GlaLayerImpl(GlaLayerOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  const GlaLayerOptions& options() const { return options_; }

  torch::Tensor weight_q, weight_k, weight_v, weight_gate_down, weight_gate_up, bias_gate,
      weight_out_gate, norm_weight, weight_out;

 private:
  GlaLayerOptions options_;
};
TORCH_MODULE(GlaLayer);

}  // namespace recurlab::models
