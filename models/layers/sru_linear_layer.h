#pragma once
// One layer of the first SRU (Lei, Zhang & Artzi 2017, "Training RNNs as Fast as CNNs",
// arXiv:1709.02755v1, §2), whose gates read the input alone, with no c_{t-1} term: the state's
// recurrence is linear, and kernels/linear_recurrence.h runs it with a_t = f_t,
// b_t = (1 - f_t) ⊙ x̃_t:
//   x̃_t = W x_t,  f_t = σ(W_f x_t + b_f),  r_t = σ(W_r x_t + b_r)
//   c_t = f_t ⊙ c_{t-1} + (1 - f_t) ⊙ x̃_t,  h_t = r_t ⊙ g(c_t) + (1 - r_t) ⊙ x_t
// g is tanh or the identity (`activation`). The highway term takes x_t itself when the input
// size equals the output size, else a learned projection W' x_t (a 4th matrix, as the later
// SRU's k = 4). Bidirectional: a second set of units walks time backwards. State: [last c].
//   weight (input, k·out) = [x̃ | f | r | (W'x)] column blocks, each [forward | backward units]
//   bias   (2·out) = [b_f | b_r]
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct SruLinearLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;  // d per direction
  bool bidirectional = false;
  bool tanh_activation = true;  // g = tanh, else the identity
  bool negative_eigenvalues = false;  // a_t = 2f_t - 1 (models/layers/signed_decay.h)

  int64_t outputSize() const { return (bidirectional ? 2 : 1) * hidden_size; }
  int64_t numMatrices() const { return input_size == outputSize() ? 3 : 4; }
};

class SruLinearLayerImpl : public StackableLayer {
 public:
  explicit SruLinearLayerImpl(SruLinearLayerOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.outputSize(); }
  bool causal() const override { return !options_.bidirectional; }
  const SruLinearLayerOptions& options() const { return options_; }

  torch::Tensor weight, bias;

 private:
  SruLinearLayerOptions options_;
};
TORCH_MODULE(SruLinearLayer);

}  // namespace recurlab::models
