#pragma once
// A multi-layer, optionally bidirectional SRU (the reference's `SRU` module). Layers live in
// the ModuleList "rnn_lst", so parameter names read "rnn_lst.0.weight" as in the reference.
// Dropout applies inside every layer but the last (the reference has no extra dropout).
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <utility>

#include "models/layers/sru_layer.h"

namespace recurlab::models {

struct SruOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 2;
  bool bidirectional = false;
  bool has_skip_term = true;
  bool rescale = false;
  double highway_bias = 0.0;
  // Config key "dropout": in an SRU a variational mask on the r⊙c branch of every layer but
  // the last (asappresearch/sru), not a mask between layers as in the other encoders.
  double rc_dropout = 0.0;
  double rnn_dropout = 0.0;
  int64_t projection_size = 0;
  bool layer_norm = false;
  bool normalize_after = false;
  std::optional<double> weight_c_init;

  int64_t outputSize() const { return (bidirectional ? 2 : 1) * hidden_size; }
  SruLayerOptions layerOptions(int64_t layer) const;
};

class SruImpl : public torch::nn::Module {
 public:
  explicit SruImpl(SruOptions options);

  // input (L, B, input_size); c0 (num_layers, B, out) or undefined; mask_pad (L, B).
  // Returns (h of the last layer (L, B, out), last c of every layer (num_layers, B, out)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& c0 = {},
                                                  const torch::Tensor& mask_pad = {});

  // Every layer's h as well (for the variance study and for analysis).
  std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> forwardAllLayers(
      const torch::Tensor& input, const torch::Tensor& c0 = {},
      const torch::Tensor& mask_pad = {});

  SruLayer layer(int64_t i) const;
  int64_t numLayers() const { return options_.num_layers; }
  const SruOptions& options() const { return options_; }

  torch::nn::ModuleList rnn_lst;

 private:
  SruOptions options_;
};
TORCH_MODULE(Sru);

}  // namespace recurlab::models
