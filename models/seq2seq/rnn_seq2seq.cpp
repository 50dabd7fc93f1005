#include "models/seq2seq/rnn_seq2seq.h"

#include <torch/torch.h>

#include <limits>

namespace recurlab::models {

RnnSeq2Seq::RnnSeq2Seq(RnnSeq2SeqOptions options, std::shared_ptr<SequenceEncoder> encoder_stack,
                       std::shared_ptr<SequenceEncoder> decoder_stack, int64_t vocabulary_size,
                       Seq2SeqSpecialIds ids)
    : options_(options), vocabulary_size_(vocabulary_size), ids_(ids) {
  TORCH_CHECK(encoder_stack && decoder_stack, "rnn_seq2seq: missing encoder or decoder");
  TORCH_CHECK(decoder_stack->causal(),
              "rnn_seq2seq: the decoder must be causal (it decodes step by step)");
  TORCH_CHECK(vocabulary_size > 0 && ids.pad >= 0 && ids.pad < vocabulary_size,
              "rnn_seq2seq: the pad id must lie in the vocabulary of ", vocabulary_size);
  embedding = register_module(
      "embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(vocabulary_size,
                                                                    options_.embed_dim)
                                            .padding_idx(ids.pad)));
  {
    torch::NoGradGuard no_grad;  // fairseq's LSTM models: U(-0.1, 0.1), pad row 0
    embedding->weight.uniform_(-0.1, 0.1);
    embedding->weight[ids.pad].zero_();
  }
  encoder = register_module("encoder", std::move(encoder_stack));
  decoder = register_module("decoder", std::move(decoder_stack));
  attention_keys = register_module(
      "attention_keys",
      torch::nn::Linear(torch::nn::LinearOptions(encoder->outputSize(), decoder->outputSize())
                            .bias(false)));
  output = register_module(
      "output", torch::nn::Linear(torch::nn::LinearOptions(
                                      encoder->outputSize() + decoder->outputSize(),
                                      options_.embed_dim)
                                      .bias(false)));
}

EncoderMemory RnnSeq2Seq::encode(const at::Tensor& source, const at::Tensor& source_pad) {
  TORCH_CHECK(source.dim() == 2 && source.scalar_type() == torch::kLong && source_pad.defined() &&
                  source_pad.sizes() == source.sizes(),
              "rnn_seq2seq: source and source_pad must be (S, B), source int64");
  const torch::Tensor pad = source_pad.to(torch::kBool);
  const torch::Tensor x = torch::dropout(embedding(source), options_.dropout, is_training());
  EncoderMemory memory;
  memory.states = encoder->encode(x, pad);
  memory.mask_pad = pad;
  memory.extras.push_back(attention_keys(memory.states));
  return memory;
}

DecoderOutput RnnSeq2Seq::decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                                 const EncoderMemory& memory, const SequenceState& state,
                                 bool keep_attention) {
  TORCH_CHECK(target_in.dim() == 2 && target_in.scalar_type() == torch::kLong,
              "rnn_seq2seq: target_in must be (T, B) int64, got ", target_in.sizes());
  TORCH_CHECK(memory.states.defined() && memory.extras.size() == 1 &&
                  memory.states.size(1) == target_in.size(1),
              "rnn_seq2seq: the memory must come from RnnSeq2Seq::encode with the target's batch");
  const torch::Tensor pad = target_pad.defined() ? target_pad.to(torch::kBool) : torch::Tensor();
  const torch::Tensor x = torch::dropout(embedding(target_in), options_.dropout, is_training());
  SequenceOutput d = decoder->encode(x, pad, state);
  const torch::Tensor h = d.features.transpose(0, 1);  // (B, T, Dd)
  const torch::Tensor scores =
      torch::bmm(h, memory.extras[0].permute({1, 2, 0}))  // (B, T, S)
          .masked_fill(memory.mask_pad.t().unsqueeze(1), -std::numeric_limits<double>::infinity());
  const torch::Tensor a = torch::softmax(scores, -1);
  const torch::Tensor c = torch::bmm(a, memory.states.transpose(0, 1));  // (B, T, De)
  const torch::Tensor o = torch::tanh(output(torch::cat({c, h}, -1))).transpose(0, 1);
  DecoderOutput out;
  out.logits = torch::matmul(torch::dropout(o, options_.dropout, is_training()),
                             embedding->weight.t());
  out.state = std::move(d.state);
  if (keep_attention) out.attention.push_back(a);
  return out;
}

}  // namespace recurlab::models
