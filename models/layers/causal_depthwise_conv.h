#pragma once
// A causal convolution over time with one filter per feature (depthwise), the short temporal
// convolution Griffin puts before its RG-LRU (De et al. 2024, §2.4; width 4 there):
//   y_t = b + Σ_{s=0}^{width-1} w[width-1-s] ⊙ x_{t-s}
// w (width, d) is laid out as recurrentgemma's Conv1D stores it (w[width-1] multiplies the
// current step). The steps before a segment come from the state (the last width-1 real inputs
// of the previous segment; zeros at a sequence's start).
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/sequence_state.h"

namespace recurlab::models {

class CausalDepthwiseConvImpl : public torch::nn::Module {
 public:
  CausalDepthwiseConvImpl(int64_t features, int64_t width);
  void reset_parameters();

  // x (L, B, d) right-padded (mask_pad (L, B) nonzero = pad, or undefined); previous
  // (B, width-1, d) or undefined. Returns y (L, B, d) and the last width-1 real inputs of each
  // sequence (B, width-1, d), the state for its next segment.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x,
                                                  const torch::Tensor& mask_pad,
                                                  const torch::Tensor& previous);
  int64_t width() const { return width_; }

  torch::Tensor weight, bias;  // (width, d), (d)

 private:
  int64_t width_;
};
TORCH_MODULE(CausalDepthwiseConv);

}  // namespace recurlab::models
