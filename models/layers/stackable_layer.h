#pragma once
// One layer of a RecurrentStackEncoder (models/encoders/recurrent_stack.h): time-major in,
// time-major out, with the state it carries from one segment of a sequence to the next.
#include <torch/nn/module.h>

#include "models/layers/sequence_state.h"

namespace recurlab::models {

class StackableLayer : public torch::nn::Module {
 public:
  // input (L, B, input size); mask_pad (L, B) nonzero = pad (right padding) or undefined;
  // state: this layer's state after the previous segment, or empty at the start. Returns
  // features (L, B, outputSize()), whose pad steps may be anything (the stack zeroes them), and
  // the state after each sequence's last real step.
  virtual SequenceOutput forwardSequence(const torch::Tensor& input,
                                         const torch::Tensor& mask_pad,
                                         const SequenceState& state) = 0;
  virtual int64_t outputSize() const = 0;
  // True when the features at step t depend on the inputs up to t only (and on the state).
  virtual bool causal() const = 0;
};

}  // namespace recurlab::models
