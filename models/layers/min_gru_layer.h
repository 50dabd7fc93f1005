#pragma once
// One minGRU layer (Feng et al. 2024, "Were RNNs All We Needed?", §3): the GRU with its
// gates and candidate computed from the input alone, so the recurrence is linear in h:
//   z_t = σ(Linear_z(x_t)),  h̃_t = Linear_h(x_t),  h_t = (1 - z_t) ⊙ h_{t-1} + z_t ⊙ h̃_t
// run by kernels/linear_recurrence.h with a_t = 1 - z_t = σ(-k_t), b_t = z_t ⊙ h̃_t. With
// log_space, the appendix's log-space form: h̃_t = g(Linear_h(x_t)) (min_rnn_log_space.h), a_t = exp(-softplus(k_t)),
// b_t = exp(-softplus(-k_t) + log g(·)). Bidirectional: a second set of units walks time
// backwards; the output concatenates both. State: [last h (B, dirs·d)].
//   weight (input, 2·out) = [k | h̃] column blocks, each [forward units | backward units]
//   bias   (2·out)
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct MinGruLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;  // d per direction
  bool bidirectional = false;
  bool log_space = false;
  bool negative_eigenvalues = false;  // a_t = 2(1 - z_t) - 1 (models/layers/signed_decay.h)

  int64_t outputSize() const { return (bidirectional ? 2 : 1) * hidden_size; }
};

class MinGruLayerImpl : public StackableLayer {
 public:
  explicit MinGruLayerImpl(MinGruLayerOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.outputSize(); }
  bool causal() const override { return !options_.bidirectional; }
  const MinGruLayerOptions& options() const { return options_; }

  torch::Tensor weight, bias;

 private:
  MinGruLayerOptions options_;
};
TORCH_MODULE(MinGruLayer);

}  // namespace recurlab::models
