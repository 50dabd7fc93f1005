#pragma once
// A stack of HGRN layers (Qin, Yang & Zhong 2023, §3) sharing one parameter: the logits Γ
// (layers, d) of the forget gates' lower bounds. Layer k's bound is the cumulative softmax of
// Γ over the layers below it, γ^k = Σ_{j<k} softmax(Γ, over layers)_j: 0 for the first layer,
// rising with depth and below 1 at the top, so lower layers may forget quickly and upper ones
// keep long-range information. Plain dropout between layers; pad steps zero. State: one child
// per layer holding its last h.
#include <torch/nn/modules/container/modulelist.h>

#include "models/encoders/sequence_encoder.h"
#include "models/layers/hgrn_layer.h"

namespace recurlab::models {

struct HgrnEncoderOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 2;
  double dropout = 0.0;
  bool bias = true;             // HgrnLayerOptions::bias
  bool gated_rms_norm = false;  // HgrnLayerOptions::gated_rms_norm
  bool negative_eigenvalues = false;  // HgrnLayerOptions::negative_eigenvalues
};

class HgrnEncoder : public SequenceEncoder {
 public:
  explicit HgrnEncoder(HgrnEncoderOptions options);

  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }

  // γ (layers, d): row k is layer k's lower bound.
  torch::Tensor lowerBounds() const;
  HgrnLayer layer(int64_t i) const;

  torch::Tensor lower_bound_logits;  // Γ
  torch::nn::ModuleList layers;

 protected:
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override;

 private:
  HgrnEncoderOptions options_;
};

}  // namespace recurlab::models
