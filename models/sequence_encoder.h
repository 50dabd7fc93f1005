#pragma once
// The one interface every sequence layer exposes to the drivers: time-major input in,
// per-step features out. Drivers build encoders by name through models/registry.h.
#include <torch/nn/module.h>

#include <string>

namespace recurlab::models {

// How a classifier head turns the per-step features into one vector.
enum class Pooling { Last, Mean, Max };

class SequenceEncoder : public torch::nn::Module {
 public:
  // input (L, B, input_size); mask_pad (L, B) bool, true = pad step (right padding), or
  // undefined. Returns per-step features (L', B, outputSize()); pad steps are zero.
  virtual torch::Tensor encode(const torch::Tensor& input, const torch::Tensor& mask_pad) = 0;
  virtual int64_t outputSize() const = 0;
  virtual Pooling preferredPooling() const { return Pooling::Last; }
};

}  // namespace recurlab::models
