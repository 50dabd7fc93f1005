#pragma once
// One gated convolutional block of ConvS2S (Gehring et al., 2017, §3), time-major:
//
//   x (L, B, c_in) -> dropout(retain p) -> Conv1d over time, width k, c_in -> 2·c_out
//     -> GLU: a ⊙ σ(b) with [a | b] the two channel halves -> y (L, B, c_out)
//   residual (when enabled and c_in == c_out): out = sqrt(0.5)·(y + x)
//
// Initialization (Gehring et al., 2017, App. A): a conv followed by a GLU keeps the variance of the
// activations (forward) and of the gradients (backward) when W ~ N(0, sqrt(4p/n)), with
// n = k·c_in and p the retain probability of the dropout before it (A.1-A.3). GluInit::Naive
// gives N(0, sqrt(1/n)) instead (what the variance study compares against). Bias = 0.
//
// Padding: Causal pads k-1 steps on the left (output t sees inputs t-k+1..t, for decoders);
// Same pads (k-1)/2 left and k-1-(k-1)/2 right (output t is centred on t, for encoders).
// State (causal only): the last k-1 inputs after dropout (B, k-1, c_in), which the next
// segment's first steps see in place of the left padding.
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include "models/layers/sequence_state.h"

namespace recurlab::models {

enum class ConvPadding { Same, Causal };
enum class GluInit { DropoutAware, Naive };

struct GatedConvBlockOptions {
  int64_t input_channels = 0;   // c_in
  int64_t output_channels = 0;  // c_out (the conv has 2·c_out output channels)
  int64_t kernel_width = 3;     // k
  double dropout = 0.0;         // drop probability on the input; retain p = 1 - dropout
  ConvPadding padding = ConvPadding::Same;
  GluInit init = GluInit::DropoutAware;
  bool residual = true;  // applied only when input_channels == output_channels
  // Weight normalization (ConvS2S, Gehring et al. 2017, §3.4): the conv applies
  // W = g · V / ||V|| per output channel, V = conv->weight, g = weight_g starting at ||V||.
  bool weight_norm = false;

  double retainProbability() const { return 1.0 - dropout; }
  bool hasResidual() const { return residual && input_channels == output_channels; }
  // Standard deviation of the initial conv weights under `init`.
  double initStd() const;
};

class GatedConvBlockImpl : public torch::nn::Module {
 public:
  explicit GatedConvBlockImpl(GatedConvBlockOptions options);

  void reset_parameters();

  // input (L, B, c_in); mask_pad (L, B) bool, true = pad step, or undefined: pad steps are
  // zeroed on the way in (so they do not leak into neighbours) and on the way out.
  // Returns (L, B, c_out).
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& mask_pad = {}) {
    return forwardSequence(input, mask_pad, {}).features;
  }
  // The same from `state` (Causal padding only; empty = zeros) and the state to carry on.
  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state);
  bool causal() const { return options_.padding == ConvPadding::Causal; }

  const GatedConvBlockOptions& options() const { return options_; }

  torch::nn::Conv1d conv{nullptr};  // weight (2·c_out, c_in, k), bias (2·c_out)
  torch::Tensor weight_g;           // (2·c_out, 1, 1), weight_norm only

 private:
  GatedConvBlockOptions options_;
};
TORCH_MODULE(GatedConvBlock);

}  // namespace recurlab::models
