#include "tasks/synthetic/token_mixer_model.h"

#include <torch/torch.h>

#include <stdexcept>

namespace recurlab::experiments {

TokenMixerModelImpl::TokenMixerModelImpl(int64_t vocabulary, int64_t width, int64_t classes,
                                         std::shared_ptr<models::SequenceEncoder> encoder)
    : encoder_(std::move(encoder)) {
  embedding_ = register_module("embedding", torch::nn::Embedding(vocabulary, width));
  register_module("encoder", encoder_);
  output_ = register_module("output", torch::nn::Linear(encoder_->outputSize(), classes));
}

torch::Tensor TokenMixerModelImpl::forward(const torch::Tensor& tokens) {
  return output_(features(tokens));
}

torch::Tensor TokenMixerModelImpl::forwardAsked(const torch::Tensor& tokens,
                                                const torch::Tensor& asked) {
  return output_(features(tokens).index({asked}));
}

torch::Tensor TokenMixerModelImpl::features(const torch::Tensor& tokens) {
  const auto features = encoder_->encode(embedding_(tokens.t()), torch::Tensor());
  if (features.size(0) != tokens.size(1))
    throw std::invalid_argument(
        "synthetic task: the encoder gives " + std::to_string(features.size(0)) +
        " feature steps for " + std::to_string(tokens.size(1)) +
        " tokens; a mixer must give one per step (a pooling encoder such as cnn cannot be one)");
  return features.transpose(0, 1);
}

}  // namespace recurlab::experiments
