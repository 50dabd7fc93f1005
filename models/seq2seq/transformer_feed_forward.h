#pragma once
// The position-wise block of a Transformer layer, before its residual dropout:
//   relu      fc2(activation_dropout(relu(fc1 x)))                        (Vaswani et al. 2017)
//   sru       fc2(SRU(x)): an SRU d_model -> d_ff without its skip term replaces fc1 and the
//             activation (Lei et al. 2018, App. B.3, as flambe builds it); a decoder's SRU is
//             unidirectional and carries its c (B, d_ff) in the state; an encoder's may be
//             bidirectional (fc2 then reads 2·d_ff)
//   self_iru  the non-autoregressive Self-IRU of Zhang et al. 2021, App. A.1 (position-wise, no
//             state)
//   recurrence  fc2(R(x)): as sru, with R any registry encoder (models/registry.h) from
//             d_model to d_ff, e.g. a minGRU or an HGRN layer; a decoder's must be causal and
//             carries R's state
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <functional>
#include <memory>
#include <string>

#include "models/encoders/sequence_encoder.h"
#include "models/layers/self_iru_feed_forward.h"
#include "models/layers/sequence_state.h"
#include "models/layers/sru_layer.h"

namespace recurlab::models {

// Builds the recurrence block's R: (input size, output width d_ff, bidirectional) -> encoder.
using FeedForwardRecurrenceFactory = std::function<std::shared_ptr<SequenceEncoder>(
    int64_t input_size, int64_t hidden_size, bool bidirectional)>;

struct TransformerFeedForwardOptions {
  std::string kind = "relu";  // "relu", "sru", "self_iru" or "recurrence"
  int64_t d_model = 0;
  int64_t d_ff = 0;                 // relu, sru
  double activation_dropout = 0.0;  // relu
  double sru_dropout = 0.0;         // sru: its dropout and rnn_dropout
  bool bidirectional = false;       // sru, recurrence: encoder only
  int64_t self_iru_depth = 2;       // self_iru
  FeedForwardRecurrenceFactory make_recurrence;  // recurrence
};

class TransformerFeedForwardImpl : public torch::nn::Module {
 public:
  explicit TransformerFeedForwardImpl(TransformerFeedForwardOptions options);
  // x (T, B, d_model); mask_pad (T, B) bool or undefined; state: the SRU's c (sru only).
  SequenceOutput forwardSequence(const torch::Tensor& x, const torch::Tensor& mask_pad,
                                 const SequenceState& state);
  const TransformerFeedForwardOptions& options() const { return options_; }

  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  SruLayer sru{nullptr};
  SelfIruFeedForward self_iru{nullptr};
  std::shared_ptr<SequenceEncoder> recurrence;

 private:
  TransformerFeedForwardOptions options_;
};
TORCH_MODULE(TransformerFeedForward);

}  // namespace recurlab::models
