#pragma once
// One n-gram RCNN layer (Peng et al., 2018, Prop. 12, n = 1..4) over the fused kernel
// kernels/ngram_recurrence.h: U = X·W + b with [z1..zn, f, (o)] per unit; b is zero on the
// z columns and learned on f (and o). Init as RationalRnnLayer.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <utility>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct NgramRcnnLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t n = 2;
  bool output_gate = false;

  int64_t numMatrices() const { return n + 1 + (output_gate ? 1 : 0); }
};

class NgramRcnnLayerImpl : public StackableLayer {
 public:
  explicit NgramRcnnLayerImpl(NgramRcnnLayerOptions options);
  void reset_parameters();

  // Returns (h (L, B, d), last states (B, n·d)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& c0 = {},
                                                  const torch::Tensor& mask_pad = {});
  torch::Tensor preActivations(const torch::Tensor& input) const;  // U (L, B, d·k)

  // State: [last states (B, n·d)], as forward's c0. Causal.
  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override {
    auto [h, c] = forward(input, state.tensor(0, "NgramRcnnLayer"), mask_pad);
    return {h, SequenceState{{c}, {}}};
  }
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  const NgramRcnnLayerOptions& options() const { return options_; }

  torch::Tensor weight;     // (input, d·k)
  torch::Tensor gate_bias;  // (d, k - n): biases of [f, (o)] per unit

 private:
  NgramRcnnLayerOptions options_;
};
TORCH_MODULE(NgramRcnnLayer);

}  // namespace recurlab::models
