#pragma once
// Sentence classifier head (Lei et al., 2018, App. B.1): embedding -> dropout -> encoder -> pooling
// over time -> dropout -> linear. The encoder is any SequenceEncoder from the registry.
#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <memory>

#include "models/encoders/sequence_encoder.h"
#include "models/heads/pooling.h"

namespace recurlab::models {

struct TextClassifierOptions {
  int64_t vocab_size = 0;
  int64_t embed_dim = 300;
  int64_t num_classes = 2;
  double embed_dropout = 0.5;
  double dropout = 0.5;
  // When set (vocab_size, embed_dim), the embedding starts from it and stays fixed (Kim's
  // static vectors); otherwise it starts at U(-0.25, 0.25) and is trained.
  torch::Tensor pretrained;
  // A trained embedding gets sparse gradients (only the batch's rows), for an optimizer that
  // updates those rows only; ignored for a fixed (pretrained) one.
  bool sparse_gradients = false;
  // Pooling over time (choosePooling in models/heads/pooling.h picks one per encoder).
  Pooling pooling = Pooling::Last;
};

class TextClassifierImpl : public torch::nn::Module {
 public:
  TextClassifierImpl(TextClassifierOptions options, std::shared_ptr<SequenceEncoder> encoder);

  // tokens (L, B) int64 right-padded with id 0; mask_pad (L, B) bool true = pad;
  // lengths (B). Returns logits (B, num_classes).
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& mask_pad,
                        const torch::Tensor& lengths);

  const TextClassifierOptions& options() const { return options_; }
  torch::Tensor& embeddingWeight() { return embedding_->weight; }

 private:
  TextClassifierOptions options_;
  torch::nn::Embedding embedding_{nullptr};
  std::shared_ptr<SequenceEncoder> encoder_;
  torch::nn::Dropout embed_dropout_{nullptr}, dropout_{nullptr};
  torch::nn::Linear output_{nullptr};
};
TORCH_MODULE(TextClassifier);

}  // namespace recurlab::models
