#pragma once
// The one interface every sequence encoder exposes to the drivers: time-major input in,
// per-step features and the state to carry on out. Drivers build encoders by name through
// models/registry.h; heads (models/heads/) turn the features into predictions.
#include <torch/nn/module.h>

#include "models/layers/sequence_state.h"

namespace recurlab::models {

class SequenceEncoder : public torch::nn::Module {
 public:
  // input (L, B, input_size); mask_pad (L, B) bool, true = pad step (right padding), or
  // undefined; state: what encode returned for the previous segment of the same sequences
  // (a BPTT language model, a decoder step by step), or empty at their start. Returns per-step
  // features (L', B, outputSize()), zero at pad steps, and the state after each sequence's last
  // real step (empty for encoders that carry none, see causal()).
  SequenceOutput encode(const torch::Tensor& input, const torch::Tensor& mask_pad,
                        const SequenceState& state);
  // From the start of the sequences, features only.
  torch::Tensor encode(const torch::Tensor& input, const torch::Tensor& mask_pad);

  virtual int64_t outputSize() const = 0;
  // True when the features at step t depend on the inputs up to t only (and on the state): the
  // encoder never looks ahead, and encoding a sequence one step at a time with the state
  // carried gives the features of the whole sequence at once.
  virtual bool causal() const = 0;

 protected:
  // encode() after its argument checks.
  virtual SequenceOutput encodeSequence(const torch::Tensor& input,
                                        const torch::Tensor& mask_pad,
                                        const SequenceState& state) = 0;
};

}  // namespace recurlab::models
