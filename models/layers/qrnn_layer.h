#pragma once
// One QRNN layer (Bradbury et al. 2017): a masked convolution of window 1 or 2
// as one matmul, U = [x_t, x_{t-1}]·W + b with [z, f, o] interleaved per unit, then the fused
// fo- or f-pooling (kernels/qrnn_pooling.h; paper convention for f).
// Zoneout on f: in training an element-wise Bernoulli(1 - p) mask per step multiplies 1 - f
// (a zero keeps the old state); in evaluation 1 - f is scaled by 1 - p (salesforce's rule).
// State: [last c (B, d)], and with window 2 also the last real input (B, 1, input_size), which
// the next segment's first step sees as x_{t-1}. Causal.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <utility>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct QrnnLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t window = 1;        // 1 or 2
  bool output_gate = true;   // fo-pooling; false = f-pooling
  double zoneout = 0.0;      // probability of keeping the old state, per element and step

  int64_t numMatrices() const { return output_gate ? 3 : 2; }
};

class QrnnLayerImpl : public StackableLayer {
 public:
  explicit QrnnLayerImpl(QrnnLayerOptions options);
  void reset_parameters();

  // input (L, B, input_size); c0 (B, d) or undefined; mask_pad (L, B) nonzero = pad.
  // Returns (h (L, B, d), last c (B, d)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& c0 = {},
                                                  const torch::Tensor& mask_pad = {});
  // The pre-activations U (L, B, d·k) for this input (no dropout); window 2 reads x_{-1} from
  // `previous` (B, 1, input_size), zeros when undefined.
  torch::Tensor preActivations(const torch::Tensor& input,
                               const torch::Tensor& previous = {}) const;

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  const QrnnLayerOptions& options() const { return options_; }

  torch::Tensor weight;  // (window·input_size, d·k); rows [x_t | x_{t-1}]
  torch::Tensor bias;    // (d·k)

 private:
  std::pair<torch::Tensor, torch::Tensor> pool(const torch::Tensor& u, const torch::Tensor& c0,
                                                const torch::Tensor& mask_pad);
  QrnnLayerOptions options_;
};
TORCH_MODULE(QrnnLayer);

}  // namespace recurlab::models
