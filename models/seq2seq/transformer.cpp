#include "models/seq2seq/transformer.h"

#include <torch/torch.h>

#include <cmath>

#include "models/seq2seq/sinusoidal_positions.h"

namespace recurlab::models {

TransformerSeq2Seq::TransformerSeq2Seq(TransformerSeq2SeqOptions options,
                                               int64_t vocabulary_size, Seq2SeqSpecialIds ids)
    : options_(std::move(options)), vocabulary_size_(vocabulary_size), ids_(ids) {
  const auto& o = options_;
  TORCH_CHECK(vocabulary_size > 0, "Transformer: the vocabulary is empty");
  TORCH_CHECK(ids.pad >= 0 && ids.pad < vocabulary_size && ids.bos >= 0 &&
                  ids.bos < vocabulary_size && ids.eos >= 0 && ids.eos < vocabulary_size,
              "Transformer: special ids must lie in the vocabulary of ", vocabulary_size);
  embedding = register_module(
      "embedding",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(vocabulary_size, o.d_model)
                               .padding_idx(ids.pad)));
  {
    torch::NoGradGuard no_grad;
    embedding->weight.normal_(0.0, std::pow(static_cast<double>(o.d_model), -0.5));
    embedding->weight[ids.pad].zero_();
  }
  TransformerLayerOptions layer{o.d_model, o.heads, o.dropout, o.attention_dropout, o.pre_norm,
                                o.feed_forward};
  layer.feed_forward.d_model = o.d_model;
  encoder_layers = register_module("encoder_layers", torch::nn::ModuleList());
  decoder_layers = register_module("decoder_layers", torch::nn::ModuleList());
  TransformerLayerOptions encoder_layer = layer;
  encoder_layer.feed_forward.bidirectional = o.encoder_bidirectional;
  for (int64_t i = 0; i < o.encoder_layers; ++i)
    encoder_layers->push_back(TransformerSeq2SeqEncoderLayer(encoder_layer));
  layer.feed_forward.bidirectional = false;  // a decoder never looks ahead
  for (int64_t i = 0; i < o.decoder_layers; ++i)
    decoder_layers->push_back(TransformerSeq2SeqDecoderLayer(layer));
  if (o.pre_norm) {
    encoder_norm = register_module(
        "encoder_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.d_model}).eps(1e-5)));
    decoder_norm = register_module(
        "decoder_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.d_model}).eps(1e-5)));
  }
}

torch::Tensor TransformerSeq2Seq::embed(const at::Tensor& tokens, const at::Tensor& positions,
                                            const at::Tensor& pad) {
  const double scale = std::sqrt(static_cast<double>(options_.d_model));
  torch::Tensor pe = sinusoidalPositions(positions, options_.d_model);
  if (pad.defined()) pe = pe.masked_fill(pad.unsqueeze(-1), 0.0);
  return torch::dropout(embedding(tokens) * scale + pe, options_.dropout, is_training());
}

EncoderMemory TransformerSeq2Seq::encode(const at::Tensor& source,
                                             const at::Tensor& source_pad) {
  TORCH_CHECK(source.dim() == 2 && source.scalar_type() == torch::kLong,
              "Transformer: source must be (S, B) int64, got ", source.sizes());
  TORCH_CHECK(source_pad.defined() && source_pad.sizes() == source.sizes(),
              "Transformer: source_pad must be (S, B) like the source, got ",
              source_pad.defined() ? source_pad.sizes() : at::IntArrayRef{});
  const torch::Tensor pad = source_pad.to(torch::kBool);
  const torch::Tensor real = pad.logical_not();
  // fairseq: position = running count of real tokens + padding_idx (first real token = 2).
  torch::Tensor positions = real.to(torch::kLong).cumsum(0) + (kFirstPosition - 1);
  torch::Tensor x = embed(source, positions, pad);
  x = x.masked_fill(pad.unsqueeze(-1), 0.0);
  for (const auto& module : *encoder_layers)
    x = module->as<TransformerSeq2SeqEncoderLayerImpl>()->forward(x, pad);
  if (encoder_norm) x = encoder_norm(x);
  EncoderMemory memory;
  memory.states = x;
  memory.mask_pad = pad;
  return memory;
}

DecoderOutput TransformerSeq2Seq::decode(const at::Tensor& target_in,
                                             const at::Tensor& target_pad,
                                             const EncoderMemory& memory,
                                             const SequenceState& state, bool keep_attention) {
  TORCH_CHECK(target_in.dim() == 2 && target_in.scalar_type() == torch::kLong,
              "Transformer: target_in must be (T, B) int64, got ", target_in.sizes());
  TORCH_CHECK(memory.states.defined() && memory.states.size(1) == target_in.size(1),
              "Transformer: the encoder memory's batch differs from the target's");
  TORCH_CHECK(!target_pad.defined() || target_pad.sizes() == target_in.sizes(),
              "Transformer: target_pad must be (T, B) like target_in");
  const auto layers = static_cast<size_t>(options_.decoder_layers);
  TORCH_CHECK(state.empty() || state.children.size() == layers, "Transformer: the state has ",
              state.children.size(), " layers, the decoder ", layers);
  const int64_t T = target_in.size(0);
  const int64_t offset = state.empty() ? 0 : state.children[0].tensors[0].size(1);
  torch::Tensor pad = target_pad.defined() ? target_pad.to(torch::kBool) : torch::Tensor();
  // Step t of the target (0 = bos) sits at position t + 2.
  torch::Tensor positions =
      (torch::arange(T, target_in.options()) + (offset + kFirstPosition)).unsqueeze(1).expand(
          target_in.sizes());
  torch::Tensor x = embed(target_in, positions, pad);
  DecoderOutput out;
  for (size_t i = 0; i < layers; ++i) {
    DecoderLayerOutput layer = decoder_layers[i]->as<TransformerSeq2SeqDecoderLayerImpl>()->forward(
        x, pad, memory.states, memory.mask_pad, state.child(i, "Transformer decoder"),
        keep_attention);
    x = layer.features;
    out.state.children.push_back(std::move(layer.state));
    if (keep_attention) out.attention.push_back(layer.attention);
  }
  if (decoder_norm) x = decoder_norm(x);
  out.logits = torch::matmul(x, embedding->weight.t());
  return out;
}

}  // namespace recurlab::models
