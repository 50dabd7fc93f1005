#include "models/heads/text_classifier.h"

#include <torch/torch.h>

#include <stdexcept>

namespace recurlab::models {

TextClassifierImpl::TextClassifierImpl(TextClassifierOptions options,
                                       std::shared_ptr<SequenceEncoder> encoder)
    : options_(std::move(options)), encoder_(std::move(encoder)) {
  if (!encoder_) throw std::invalid_argument("TextClassifier: no encoder");
  embedding_ = register_module(
      "embedding",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(options_.vocab_size, options_.embed_dim)
                               .sparse(options_.sparse_gradients && !options_.pretrained.defined())));
  {
    torch::NoGradGuard no_grad;
    if (options_.pretrained.defined()) {
      if (options_.pretrained.sizes() != embedding_->weight.sizes())
        throw std::invalid_argument("TextClassifier: pretrained embeddings have the wrong shape");
      embedding_->weight.copy_(options_.pretrained);
      embedding_->weight.set_requires_grad(false);
    } else {
      embedding_->weight.uniform_(-0.25, 0.25);
      embedding_->weight[0].zero_();  // padding id
    }
  }
  register_module("encoder", encoder_);
  embed_dropout_ = register_module("embed_dropout", torch::nn::Dropout(options_.embed_dropout));
  dropout_ = register_module("dropout", torch::nn::Dropout(options_.dropout));
  output_ = register_module("output",
                            torch::nn::Linear(encoder_->outputSize(), options_.num_classes));
}

torch::Tensor TextClassifierImpl::forward(const torch::Tensor& tokens,
                                          const torch::Tensor& mask_pad,
                                          const torch::Tensor& lengths) {
  auto x = embed_dropout_->forward(embedding_->forward(tokens));  // (L, B, E)
  auto h = encoder_->encode(x, mask_pad);
  auto pooled = poolOverTime(h, mask_pad, lengths,
                             options_.pooling);
  return output_->forward(dropout_->forward(pooled));
}

}  // namespace recurlab::models
