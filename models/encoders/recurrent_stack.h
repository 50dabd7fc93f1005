#pragma once
// A stack of sequence layers as one SequenceEncoder, shared by the QRNN, rational-recurrence,
// n-gram RCNN and Self-IRU encoders. Between layers: variational "rnn_dropout" on every layer's
// input (one mask per sequence and feature, shared over time; the recurrent dropout of Peng et al.
// (2018) §E.3) and plain "dropout" on the output of every layer but the last (vertical dropout).
// The state is one child per layer; the stack is causal when every layer is.
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>

#include <functional>
#include <memory>

#include "models/encoders/sequence_encoder.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct RecurrentStackOptions {
  int64_t num_layers = 2;
  double dropout = 0.0;      // between layers
  double rnn_dropout = 0.0;  // variational, on each layer's input
};

class RecurrentStackEncoder : public SequenceEncoder {
 public:
  // make_layer(i, input_size) builds layer i.
  using LayerFactory =
      std::function<std::shared_ptr<StackableLayer>(int64_t layer, int64_t input_size)>;

  RecurrentStackEncoder(int64_t input_size, const RecurrentStackOptions& options,
                        const LayerFactory& make_layer);

  int64_t outputSize() const override { return output_size_; }
  bool causal() const override;

  std::shared_ptr<StackableLayer> layer(int64_t i) const;
  int64_t numLayers() const { return options_.num_layers; }

 protected:
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override;

 private:
  RecurrentStackOptions options_;
  torch::nn::ModuleList layers_;
  int64_t output_size_ = 0;
};

}  // namespace recurlab::models
