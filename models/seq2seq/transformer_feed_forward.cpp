#include "models/seq2seq/transformer_feed_forward.h"

#include <torch/torch.h>

namespace recurlab::models {

TransformerFeedForwardImpl::TransformerFeedForwardImpl(TransformerFeedForwardOptions options)
    : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.kind == "relu" || o.kind == "sru" || o.kind == "self_iru" ||
                  o.kind == "recurrence",
              "TransformerFeedForward: kind must be relu, sru, self_iru or recurrence, got '",
              o.kind, "'");
  if (o.kind == "relu") {
    // PyTorch's default Linear init, as fairseq (not xavier).
    fc1 = register_module("fc1", torch::nn::Linear(o.d_model, o.d_ff));
    fc2 = register_module("fc2", torch::nn::Linear(o.d_ff, o.d_model));
  } else if (o.kind == "sru") {
    SruLayerOptions s;
    s.input_size = o.d_model;
    s.hidden_size = o.d_ff;
    s.bidirectional = o.bidirectional;
    s.has_skip_term = false;
    s.rc_dropout = o.sru_dropout;
    s.rnn_dropout = o.sru_dropout;
    sru = register_module("sru", SruLayer(s));
    // flambe applies xavier_uniform to every parameter of more than one dimension, which
    // overrides the SRU's own init of W.
    torch::NoGradGuard no_grad;
    torch::nn::init::xavier_uniform_(sru->weight);
    fc2 = register_module("fc2", torch::nn::Linear(s.outputSize(), o.d_model));
  } else if (o.kind == "recurrence") {
    TORCH_CHECK(o.make_recurrence, "TransformerFeedForward: kind recurrence without a factory");
    recurrence = register_module("recurrence",
                                 o.make_recurrence(o.d_model, o.d_ff, o.bidirectional));
    fc2 = register_module("fc2", torch::nn::Linear(recurrence->outputSize(), o.d_model));
  } else {
    self_iru = register_module("self_iru", SelfIruFeedForward(o.d_model, o.self_iru_depth));
  }
}

SequenceOutput TransformerFeedForwardImpl::forwardSequence(const torch::Tensor& x,
                                                           const torch::Tensor& mask_pad,
                                                           const SequenceState& state) {
  SequenceOutput out;
  if (fc1) {
    out.features = fc2(torch::dropout(torch::relu(fc1(x)), options_.activation_dropout,
                                      is_training()));
  } else if (sru) {
    TORCH_CHECK(!options_.bidirectional || state.empty(),
                "TransformerFeedForward: a bidirectional SRU carries no state");
    auto [h, c] = sru->forward(x, state.tensor(0, "TransformerFeedForward (sru)"), mask_pad);
    out.features = fc2(h);
    if (!options_.bidirectional) out.state.tensors.push_back(c);
  } else if (recurrence) {
    SequenceOutput r = recurrence->encode(x, mask_pad, state);
    out.features = fc2(r.features);
    out.state = std::move(r.state);
  } else {
    out.features = self_iru->forward(x);
  }
  return out;
}

}  // namespace recurlab::models
