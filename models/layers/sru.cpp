#include "models/layers/sru.h"

#include <torch/torch.h>

namespace recurlab::models {

SruLayerOptions SruOptions::layerOptions(int64_t layer) const {
  SruLayerOptions o;
  o.input_size = layer == 0 ? input_size : outputSize();
  o.hidden_size = hidden_size;
  o.bidirectional = bidirectional;
  o.has_skip_term = has_skip_term;
  o.rescale = rescale;
  o.highway_bias = highway_bias;
  o.rc_dropout = layer + 1 < num_layers ? rc_dropout : 0.0;
  o.rnn_dropout = rnn_dropout;
  o.projection_size = projection_size;
  o.layer_norm = layer_norm;
  o.normalize_after = normalize_after;
  o.weight_c_init = weight_c_init;
  return o;
}

SruImpl::SruImpl(SruOptions options) : options_(std::move(options)) {
  TORCH_CHECK(options_.num_layers > 0, "Sru: num_layers must be positive, got ",
              options_.num_layers);
  rnn_lst = register_module("rnn_lst", torch::nn::ModuleList());
  for (int64_t i = 0; i < options_.num_layers; ++i)
    rnn_lst->push_back(SruLayer(options_.layerOptions(i)));
}

SruLayer SruImpl::layer(int64_t i) const {
  return SruLayer(rnn_lst->ptr<SruLayerImpl>(static_cast<size_t>(i)));
}

std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> SruImpl::forwardAllLayers(
    const torch::Tensor& input, const torch::Tensor& c0, const torch::Tensor& mask_pad) {
  const int64_t n = options_.num_layers;
  if (c0.defined()) {
    TORCH_CHECK(c0.dim() == 3 && c0.size(0) == n && c0.size(2) == options_.outputSize(),
                "Sru: c0 must be (num_layers = ", n, ", batch, out = ", options_.outputSize(),
                "), got ", c0.sizes());
  }
  std::vector<torch::Tensor> hs, cs;
  torch::Tensor x = input;
  for (int64_t i = 0; i < n; ++i) {
    auto [h, c] = layer(i)->forward(x, c0.defined() ? c0[i] : torch::Tensor(), mask_pad);
    hs.push_back(h);
    cs.push_back(c);
    x = h;
  }
  return {hs, cs};
}

std::pair<torch::Tensor, torch::Tensor> SruImpl::forward(const torch::Tensor& input,
                                                         const torch::Tensor& c0,
                                                         const torch::Tensor& mask_pad) {
  auto [hs, cs] = forwardAllLayers(input, c0, mask_pad);
  return {hs.back(), torch::stack(cs)};
}

}  // namespace recurlab::models
