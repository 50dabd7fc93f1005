#include "tasks/qa/document_reader.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "tasks/qa/reader_layers.h"
#include "experiments/training/meter.h"
#include "models/registry.h"

namespace recurlab::experiments::qa {

RecurrentTimer::Mark RecurrentTimer::Mark::now() {
  return {Clock::now(), Meter::now(Meter::Clock::ProcessCpu)};
}

void RecurrentTimer::add(const Mark& begin, const Mark& end) {
  if (begin.wall < end.wall) intervals_.emplace_back(begin, end);
}

RecurrentTimer::Seconds RecurrentTimer::take() {
  std::sort(intervals_.begin(), intervals_.end(),
            [](const auto& a, const auto& b) { return a.first.wall < b.first.wall; });
  Seconds total;
  bool any = false;
  Mark covered_to{};
  for (const auto& [b, e] : intervals_) {
    // The part of [b, e] past what is covered: it starts at the later of b and covered_to,
    // both marks taken with both clocks.
    const Mark& from = !any || covered_to.wall < b.wall ? b : covered_to;
    if (from.wall < e.wall) {
      total.wall += std::chrono::duration<double>(e.wall - from.wall).count();
      total.cpu += std::max(0.0, e.cpu - from.cpu);
      covered_to = e;
      any = true;
    }
  }
  intervals_.clear();
  return total;
}

EncoderStackImpl::EncoderStackImpl(const ReaderEncoderSpec& spec, int64_t input_size)
    : spec_(spec) {
  if (!spec.concat_layers) {
    encoders_.push_back(models::makeEncoder(spec.encoder, spec.config, input_size));
    register_module("encoder", encoders_.back());
    output_size_ = encoders_.back()->outputSize();
    return;
  }
  auto one_layer = spec.config;
  one_layer["layers"] = 1;
  int64_t in = input_size;
  for (int64_t l = 0; l < spec.layers; ++l) {
    encoders_.push_back(models::makeEncoder(spec.encoder, one_layer, in));
    register_module("layer" + std::to_string(l), encoders_.back());
    in = encoders_.back()->outputSize();
    output_size_ += in;
  }
}

at::Tensor EncoderStackImpl::forward(const at::Tensor& input, const at::Tensor& pad) {
  const auto pad_t = pad.transpose(0, 1).contiguous();
  if (!spec_.concat_layers)
    return encoders_[0]->encode(input.transpose(0, 1).contiguous(), pad_t).transpose(0, 1);
  std::vector<at::Tensor> outputs;
  at::Tensor x = input.transpose(0, 1).contiguous();
  for (auto& e : encoders_) {
    x = torch::dropout(x, spec_.layer_dropout, is_training());
    x = e->encode(x, pad_t);
    outputs.push_back(x);
  }
  return torch::cat(outputs, 2).transpose(0, 1);
}

DocumentReaderImpl::DocumentReaderImpl(const DocumentReaderOptions& o) : options_(o) {
  embedding = register_module(
      "embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(o.vocab_size, o.embed_dim)
                                            .padding_idx(0)));
  if (!o.pretrained.empty()) {
    if (static_cast<int64_t>(o.pretrained.size()) != o.vocab_size * o.embed_dim)
      throw std::invalid_argument("document reader: pretrained matrix has the wrong size");
    torch::NoGradGuard no_grad;
    embedding->weight.copy_(torch::from_blob(const_cast<float*>(o.pretrained.data()),
                                             {o.vocab_size, o.embed_dim}, torch::kFloat));
  }
  if (o.tune_top > 0 && o.tune_top + 2 < o.vocab_size) {
    // Rows past the tuned words get zero gradients: Adam's moments stay zero, so they never move.
    auto keep = torch::zeros({o.vocab_size, 1});
    keep.slice(0, 1, o.tune_top + 2).fill_(1.0);
    embedding->weight.register_hook([keep](const at::Tensor& g) { return g * keep; });
  }
  align = register_module("align", torch::nn::Linear(o.embed_dim, o.embed_dim));
  const int64_t paragraph_input = 2 * o.embed_dim + o.features;
  paragraph_encoder = register_module("paragraph_encoder", EncoderStack(o.encoder, paragraph_input));
  question_encoder = register_module("question_encoder", EncoderStack(o.encoder, o.embed_dim));
  const int64_t h = paragraph_encoder->outputSize();
  question_weight = register_module("question_weight", torch::nn::Linear(h, 1));
  start_weight = register_module("start_weight", torch::nn::Linear(h, h));
  end_weight = register_module("end_weight", torch::nn::Linear(h, h));
}

at::Tensor DocumentReaderImpl::timed(EncoderStack& stack, const at::Tensor& input,
                                     const at::Tensor& pad) {
  if (!timer_ || !is_training() || !input.requires_grad()) {
    const auto t0 = RecurrentTimer::Mark::now();
    auto out = stack->forward(input, pad);
    if (timer_ && is_training()) timer_->add(t0, RecurrentTimer::Mark::now());
    return out;
  }
  // Backward through the encoder runs between the gradient reaching its output and the
  // gradient of its input being ready (one autograd thread on CPU).
  auto marks = std::make_shared<RecurrentTimer::Mark>();
  auto timer = timer_;
  auto x = input.view_as(input);
  x.register_hook([marks, timer](const at::Tensor&) {
    timer->add(*marks, RecurrentTimer::Mark::now());
  });
  const auto t0 = RecurrentTimer::Mark::now();
  auto out = stack->forward(x, pad);
  timer_->add(t0, RecurrentTimer::Mark::now());
  out.register_hook([marks](const at::Tensor&) { *marks = RecurrentTimer::Mark::now(); });
  return out;
}

ReaderScores DocumentReaderImpl::forward(const at::Tensor& paragraph, const at::Tensor& paragraph_pad,
                                         const at::Tensor& features, const at::Tensor& question,
                                         const at::Tensor& question_pad) {
  const auto& o = options_;
  auto p_emb = torch::dropout(embedding(paragraph), o.embed_dropout, is_training());
  auto q_emb = torch::dropout(embedding(question), o.embed_dropout, is_training());
  const auto aligned = alignedQuestionEmbedding(p_emb, q_emb, question_pad, align->weight, align->bias);
  const auto input = torch::cat({p_emb, aligned, features}, 2);
  auto p_h = torch::dropout(timed(paragraph_encoder, input, paragraph_pad), o.output_dropout,
                            is_training());
  auto q_h = torch::dropout(timed(question_encoder, q_emb, question_pad), o.output_dropout,
                            is_training());
  const auto q = selfAttentionPool(q_h, question_pad, question_weight->weight, question_weight->bias);
  return {bilinearScores(p_h, q, paragraph_pad, start_weight->weight, start_weight->bias),
          bilinearScores(p_h, q, paragraph_pad, end_weight->weight, end_weight->bias)};
}

}  // namespace recurlab::experiments::qa
