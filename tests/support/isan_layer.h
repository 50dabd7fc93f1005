#pragma once
// One input-switched affine network layer, ISAN (Foerster et al. 2017; the single-layer form
// of Peng et al. 2018, App. C, Prop. 13): h_t = W_{x_t} h_{t-1} + b_{x_t}, one d×d matrix and
// one bias per input symbol, no nonlinearity. It reads token ids, not feature vectors, so it
// is a layer of its own and not a SequenceEncoder of the registry (whose encoders take the
// embedded input). No model uses it: it lives with the tests, whose WFSA equivalence test
// (tests/models/layers/wfsa_equivalence_test.cpp) reads it.
// Init: W_α and b_α ~ U(±1/sqrt(d)) (torch::nn::Linear's default), so that a random W_α
// contracts on average and h stays bounded over long sequences.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <utility>

namespace recurlab::models {

struct IsanLayerOptions {
  int64_t vocab_size = 0;   // number of input symbols
  int64_t hidden_size = 0;  // d
};

class IsanLayerImpl : public torch::nn::Module {
 public:
  explicit IsanLayerImpl(IsanLayerOptions options);
  void reset_parameters();
  // tokens (L, B) int64 in [0, vocab_size); h0 (B, d) or undefined (zeros); mask_pad (L, B)
  // bool, true = pad step (right padding), or undefined. Returns (h (L, B, d), zero at pad
  // steps; the h after each sequence's last real step (B, d), h0 for a sequence without one).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& tokens,
                                                  const torch::Tensor& h0 = {},
                                                  const torch::Tensor& mask_pad = {});
  const IsanLayerOptions& options() const { return options_; }

  torch::Tensor weight;  // (vocab_size, d, d): weight[α] = W_α, h_t = W_α · h_{t-1}
  torch::Tensor bias;    // (vocab_size, d): bias[α] = b_α

 private:
  IsanLayerOptions options_;
};
TORCH_MODULE(IsanLayer);

}  // namespace recurlab::models
