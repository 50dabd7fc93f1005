#pragma once
// One minLSTM layer (Feng et al. 2024, "Were RNNs All We Needed?", §3): the LSTM with its
// gates and candidate computed from the input alone, the gates normalized to sum to one (which
// makes the output scale independent of time) and no output gate:
//   f_t = σ(Linear_f(x_t)), i_t = σ(Linear_i(x_t)), h̃_t = Linear_h(x_t),
//   f'_t = f_t / (f_t + i_t), i'_t = i_t / (f_t + i_t),  h_t = f'_t ⊙ h_{t-1} + i'_t ⊙ h̃_t
// run by kernels/linear_recurrence.h with a_t = f'_t, b_t = i'_t ⊙ h̃_t. With log_space,
// the appendix's log-space form: with δ = softplus(-p_f) - softplus(-p_i), log f' = -softplus(δ),
// log i' = -softplus(-δ), and h̃_t = g(Linear_h(x_t)) (min_rnn_log_space.h).
// Bidirectional as minGRU. State: [last h (B, dirs·d)].
//   weight (input, 3·out) = [f | i | h̃] column blocks, each [forward units | backward units]
//   bias   (3·out)
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct MinLstmLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;  // d per direction
  bool bidirectional = false;
  bool log_space = false;
  bool negative_eigenvalues = false;  // a_t = 2f'_t - 1 (models/layers/signed_decay.h)

  int64_t outputSize() const { return (bidirectional ? 2 : 1) * hidden_size; }
};

class MinLstmLayerImpl : public StackableLayer {
 public:
  explicit MinLstmLayerImpl(MinLstmLayerOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.outputSize(); }
  bool causal() const override { return !options_.bidirectional; }
  const MinLstmLayerOptions& options() const { return options_; }

  torch::Tensor weight, bias;

 private:
  MinLstmLayerOptions options_;
};
TORCH_MODULE(MinLstmLayer);

}  // namespace recurlab::models
