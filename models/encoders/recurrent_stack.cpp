#include "models/encoders/recurrent_stack.h"

#include <torch/torch.h>

namespace recurlab::models {

RecurrentStackEncoder::RecurrentStackEncoder(int64_t input_size,
                                             const RecurrentStackOptions& options,
                                             const LayerFactory& make_layer)
    : options_(options) {
  TORCH_CHECK(options_.num_layers > 0, "recurrent stack: layers must be positive, got ",
              options_.num_layers);
  TORCH_CHECK(options_.dropout >= 0 && options_.dropout < 1,
              "recurrent stack: dropout must be in [0, 1), got ", options_.dropout);
  TORCH_CHECK(options_.rnn_dropout >= 0 && options_.rnn_dropout < 1,
              "recurrent stack: rnn_dropout must be in [0, 1), got ", options_.rnn_dropout);
  layers_ = register_module("layers", torch::nn::ModuleList());
  int64_t size = input_size;
  for (int64_t i = 0; i < options_.num_layers; ++i) {
    auto l = make_layer(i, size);
    layers_->push_back(l);
    size = l->outputSize();
  }
  output_size_ = size;
}

std::shared_ptr<StackableLayer> RecurrentStackEncoder::layer(int64_t i) const {
  return layers_->ptr<StackableLayer>(static_cast<size_t>(i));
}

bool RecurrentStackEncoder::causal() const {
  for (int64_t i = 0; i < options_.num_layers; ++i)
    if (!layer(i)->causal()) return false;
  return true;
}

SequenceOutput RecurrentStackEncoder::encodeSequence(const torch::Tensor& input,
                                                     const torch::Tensor& mask_pad,
                                                     const SequenceState& state) {
  TORCH_CHECK(state.empty() || static_cast<int64_t>(state.children.size()) == options_.num_layers,
              "recurrent stack: the state has ", state.children.size(), " layers, the stack ",
              options_.num_layers);
  SequenceOutput out;
  torch::Tensor x = input;
  for (int64_t i = 0; i < options_.num_layers; ++i) {
    if (is_training() && options_.rnn_dropout > 0) {
      const double keep = 1.0 - options_.rnn_dropout;
      auto mask = torch::empty({x.size(1), x.size(2)}, x.options()).bernoulli_(keep) / keep;
      x = x * mask.unsqueeze(0);
    }
    const SequenceState& layer_state = state.child(static_cast<size_t>(i), "recurrent stack");
    SequenceOutput layer_out = layer(i)->forwardSequence(x, mask_pad, layer_state);
    x = layer_out.features;
    out.state.children.push_back(std::move(layer_out.state));
    if (i + 1 < options_.num_layers && options_.dropout > 0)
      x = torch::dropout(x, options_.dropout, is_training());
  }
  if (mask_pad.defined()) x = x.masked_fill(mask_pad.to(torch::kBool).unsqueeze(2), 0.0);
  out.features = x;
  return out;
}

}  // namespace recurlab::models
