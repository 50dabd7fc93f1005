#pragma once
// A recurrent language model: embedding -> dropout -> a causal encoder of the registry
// (models/registry.h) -> optional projection -> dropout -> softmax over the vocabulary, the
// output matrix optionally tied to the embedding (Press & Wolf 2017; Inan et al. 2017). Tied
// with an encoder width different from the embedding's, a projection to the embedding width
// comes first (as awd-lstm-lm's last layer does by its size).
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <utility>

#include "models/encoders/sequence_encoder.h"

namespace recurlab::experiments {

struct LanguageModelOptions {
  int64_t vocab_size = 0;
  int64_t embed_dim = 64;
  bool tie_embeddings = false;
  int64_t output_projection = 0;  // > 0: a linear layer to this width before the softmax
  double embed_dropout = 0.0;
  double output_dropout = 0.0;
};

class LanguageModelImpl : public torch::nn::Module {
 public:
  // Throws std::invalid_argument when the encoder is not causal (it would see the targets).
  LanguageModelImpl(const LanguageModelOptions& options,
                    std::shared_ptr<models::SequenceEncoder> encoder);

  // inputs (L, B) int64; state from the previous segment or empty. Returns logits
  // (L, B, vocab) and the state after the segment (attached to the graph).
  std::pair<torch::Tensor, models::SequenceState> forward(const torch::Tensor& inputs,
                                                          const models::SequenceState& state);

  const LanguageModelOptions& options() const { return options_; }
  models::SequenceEncoder& encoder() { return *encoder_; }
  int64_t trainableParameters() const;

 private:
  LanguageModelOptions options_;
  torch::nn::Embedding embedding_{nullptr};
  std::shared_ptr<models::SequenceEncoder> encoder_;
  torch::nn::Linear projection_{nullptr};  // null: none
  torch::nn::Linear decoder_{nullptr};     // null when tied
  torch::Tensor tied_bias_;                // the softmax bias when tied
  torch::nn::Dropout embed_dropout_{nullptr}, output_dropout_{nullptr};
};
TORCH_MODULE(LanguageModel);

}  // namespace recurlab::experiments
