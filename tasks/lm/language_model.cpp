#include "tasks/lm/language_model.h"

#include <torch/torch.h>

#include <stdexcept>

namespace recurlab::experiments {

LanguageModelImpl::LanguageModelImpl(const LanguageModelOptions& o,
                                     std::shared_ptr<models::SequenceEncoder> encoder)
    : options_(o), encoder_(std::move(encoder)) {
  if (!encoder_->causal())
    throw std::invalid_argument("language model: the encoder is not causal (bidirectional or "
                                "looking ahead); a language model must not see its targets");
  if (o.vocab_size < 1) throw std::invalid_argument("language model: empty vocabulary");
  embedding_ = register_module("embedding", torch::nn::Embedding(o.vocab_size, o.embed_dim));
  register_module("encoder", encoder_);
  int64_t width = encoder_->outputSize();
  const int64_t out = o.tie_embeddings ? o.embed_dim : o.output_projection;
  if (out > 0 && (out != width || o.output_projection > 0)) {
    projection_ = register_module("projection", torch::nn::Linear(width, out));
    width = out;
  }
  if (o.tie_embeddings)
    tied_bias_ = register_parameter("decoder_bias", torch::zeros({o.vocab_size}));
  else
    decoder_ = register_module("decoder", torch::nn::Linear(width, o.vocab_size));
  embed_dropout_ = register_module("embed_dropout", torch::nn::Dropout(o.embed_dropout));
  output_dropout_ = register_module("output_dropout", torch::nn::Dropout(o.output_dropout));
  // awd-lstm-lm's init: embedding (and tied softmax) U(±0.1), softmax bias 0; N(0, 1) rows
  // would start a tied softmax far too confident.
  torch::NoGradGuard no_grad;
  embedding_->weight.uniform_(-0.1, 0.1);
  if (decoder_) {
    decoder_->weight.uniform_(-0.1, 0.1);
    decoder_->bias.zero_();
  }
}

std::pair<torch::Tensor, models::SequenceState> LanguageModelImpl::forward(
    const torch::Tensor& inputs, const models::SequenceState& state) {
  auto x = embed_dropout_->forward(embedding_->forward(inputs));
  auto out = encoder_->encode(x, torch::Tensor(), state);
  auto h = out.features;
  if (projection_) h = projection_->forward(h);
  h = output_dropout_->forward(h);
  auto logits = decoder_ ? decoder_->forward(h)
                         : torch::nn::functional::linear(h, embedding_->weight, tied_bias_);
  return {logits, std::move(out.state)};
}

int64_t LanguageModelImpl::trainableParameters() const {
  int64_t n = 0;
  for (const auto& p : parameters())
    if (p.requires_grad()) n += p.numel();
  return n;
}

}  // namespace recurlab::experiments
