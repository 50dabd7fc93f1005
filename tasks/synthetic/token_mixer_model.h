#pragma once
// The synthetic suite's model: token embedding -> an encoder of the registry (the sequence
// mixer under test) -> a linear layer giving a score per output class at every position.
#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <memory>

#include "models/encoders/sequence_encoder.h"

namespace recurlab::experiments {

class TokenMixerModelImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument when the encoder does not give one feature per step.
  TokenMixerModelImpl(int64_t vocabulary, int64_t width, int64_t classes,
                      std::shared_ptr<models::SequenceEncoder> encoder);
  // tokens (B, L) int64 -> logits (B, L, classes).
  torch::Tensor forward(const torch::Tensor& tokens);
  // Logits (K, classes) at the K positions where `asked` (B, L) bool is true, row by row: the
  // output layer runs there only (MQAR asks at 4 of 64 positions, over 8,192 classes).
  torch::Tensor forwardAsked(const torch::Tensor& tokens, const torch::Tensor& asked);

 private:
  torch::nn::Embedding embedding_{nullptr};
  torch::Tensor features(const torch::Tensor& tokens);  // (B, L, width)

  std::shared_ptr<models::SequenceEncoder> encoder_;
  torch::nn::Linear output_{nullptr};
};
TORCH_MODULE(TokenMixerModel);

}  // namespace recurlab::experiments
