#include "models/recurrent_stack.h"

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

torch::Tensor RecurrentStackEncoder::encode(const torch::Tensor& input,
                                            const torch::Tensor& mask_pad) {
  torch::Tensor x = input;
  for (int64_t i = 0; i < options_.num_layers; ++i) {
    if (is_training() && options_.rnn_dropout > 0) {
      const double keep = 1.0 - options_.rnn_dropout;
      auto mask = torch::empty({x.size(1), x.size(2)}, x.options()).bernoulli_(keep) / keep;
      x = x * mask.unsqueeze(0);
    }
    x = layer(i)->forwardSequence(x, mask_pad);
    if (i + 1 < options_.num_layers && options_.dropout > 0)
      x = torch::dropout(x, options_.dropout, is_training());
  }
  if (mask_pad.defined()) x = x.masked_fill(mask_pad.to(torch::kBool).unsqueeze(2), 0.0);
  return x;
}

}  // namespace recurlab::models
