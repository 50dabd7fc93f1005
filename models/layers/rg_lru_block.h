#pragma once
// Griffin's recurrent block in a pre-norm residual (De et al. 2024, §2.2 and §2.4, Figure 2;
// the temporal-mixing half of Hawk's residual block, without its MLP):
//   u = RMSNorm(x)
//   y = W_out (GeLU(W_y u) ⊙ RG-LRU(Conv1D(W_x u))) + b_out,   out = x + y
// with the RG-LRU of models/layers/rg_lru_layer.h on the convolved branch (no projection of its
// own), GeLU in its tanh form (as recurrentgemma), Conv1D causal and depthwise
// (models/layers/causal_depthwise_conv.h). The residual needs input_size = hidden_size; a first
// block fed narrower embeddings has none (out = y). With output_norm (the stack's top block)
// out goes through a final RMSNorm, as Griffin's last layer. The residual and the norms keep a
// deep stack trainable: bare RG-LRU layers amplify slowly varying inputs up to
// sqrt((1 + a)/(1 - a)) each, and four of them diverged on PTB characters.
// State: [last h (B, d), last conv_width-1 inputs of the convolution (B, conv_width-1, d)].
// Names follow recurrentgemma's RecurrentBlock (linear_y, linear_x, linear_out, conv_1d, rg_lru)
// so the weights map one to one (docs/weights.md).
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "models/layers/causal_depthwise_conv.h"
#include "models/layers/rg_lru_layer.h"
#include "models/layers/rms_norm.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct RgLruBlockOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  double decay_scale = 8.0;  // c of the RG-LRU
  bool negative_eigenvalues = false;  // RgLruLayerOptions::negative_eigenvalues
  int64_t conv_width = 4;    // 1: the convolution is a per-feature scale and shift
  bool output_norm = false;  // a final RMSNorm on the block's output
};

class RgLruBlockImpl : public StackableLayer {
 public:
  explicit RgLruBlockImpl(RgLruBlockOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  bool residual() const { return options_.input_size == options_.hidden_size; }
  const RgLruBlockOptions& options() const { return options_; }

  RmsNorm temporal_pre_norm{nullptr}, final_norm{nullptr};
  torch::nn::Linear linear_y{nullptr}, linear_x{nullptr}, linear_out{nullptr};
  CausalDepthwiseConv conv_1d{nullptr};
  RgLruLayer rg_lru{nullptr};

 private:
  RgLruBlockOptions options_;
};
TORCH_MODULE(RgLruBlock);

}  // namespace recurlab::models
