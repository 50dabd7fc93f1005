#include "models/encoders/hgrn_encoder.h"

#include <torch/torch.h>

namespace recurlab::models {

HgrnEncoder::HgrnEncoder(HgrnEncoderOptions options) : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.num_layers > 0, "hgrn: layers must be positive, got ", o.num_layers);
  TORCH_CHECK(o.dropout >= 0 && o.dropout < 1, "hgrn: dropout must be in [0, 1), got ",
              o.dropout);
  // Zeros: equal shares, layer k starts bounded below by k/layers.
  lower_bound_logits =
      register_parameter("lower_bound_logits", torch::zeros({o.num_layers, o.hidden_size}));
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.num_layers; ++i)
    layers->push_back(HgrnLayer(HgrnLayerOptions{i == 0 ? o.input_size : o.hidden_size,
                                                 o.hidden_size, o.bias, o.gated_rms_norm,
                                                 o.negative_eigenvalues}));
}

torch::Tensor HgrnEncoder::lowerBounds() const {
  const torch::Tensor shares = torch::softmax(lower_bound_logits, 0);
  // Exclusive cumulative sum over the layers: the inclusive one minus each layer's own share.
  return torch::cumsum(shares, 0) - shares;
}

HgrnLayer HgrnEncoder::layer(int64_t i) const {
  return HgrnLayer(layers->ptr<HgrnLayerImpl>(static_cast<size_t>(i)));
}

SequenceOutput HgrnEncoder::encodeSequence(const torch::Tensor& input,
                                           const torch::Tensor& mask_pad,
                                           const SequenceState& state) {
  const int64_t n = options_.num_layers;
  TORCH_CHECK(state.empty() || static_cast<int64_t>(state.children.size()) == n,
              "hgrn: the state has ", state.children.size(), " layers, the encoder ", n);
  const torch::Tensor bounds = lowerBounds();
  SequenceOutput out;
  torch::Tensor x = input;
  for (int64_t i = 0; i < n; ++i) {
    const torch::Tensor h0 = state.child(static_cast<size_t>(i), "hgrn").tensor(0, "hgrn layer");
    auto [y, last] = layer(i)->forward(x, bounds[i], mask_pad, h0);
    out.state.children.push_back(SequenceState{{last}, {}});
    x = i + 1 < n ? torch::dropout(y, options_.dropout, is_training()) : y;
  }
  if (mask_pad.defined()) x = x.masked_fill(mask_pad.to(torch::kBool).unsqueeze(2), 0.0);
  out.features = x;
  return out;
}

}  // namespace recurlab::models
