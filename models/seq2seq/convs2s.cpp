#include "models/seq2seq/convs2s.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "models/layers/gated_conv_block.h"
#include "models/seq2seq/sinusoidal_positions.h"

namespace recurlab::models {
namespace {

// The position index of pad steps (its embedding row stays 0).
constexpr int64_t kPadPosition = kFirstPosition - 1;

torch::nn::Embedding makeEmbedding(int64_t rows, int64_t dim, int64_t padding_idx) {
  torch::nn::Embedding e(torch::nn::EmbeddingOptions(rows, dim).padding_idx(padding_idx));
  torch::NoGradGuard no_grad;
  e->weight.normal_(0.0, 0.1);
  e->weight[padding_idx].zero_();
  return e;
}

double linearStd(int64_t in, double retain) { return std::sqrt(retain / static_cast<double>(in)); }

// Forward: x; backward: the gradient times `scale` (fairseq's GradMultiply).
torch::Tensor scaleGradient(const torch::Tensor& x, double scale) {
  return x * scale + x.detach() * (1.0 - scale);
}

}  // namespace

ConvS2S::ConvS2S(ConvS2SOptions options, int64_t vocabulary_size, Seq2SeqSpecialIds ids)
    : options_(options), vocabulary_size_(vocabulary_size), ids_(ids) {
  const auto& o = options_;
  TORCH_CHECK(vocabulary_size > 0 && ids.pad >= 0 && ids.pad < vocabulary_size,
              "ConvS2S: the pad id must lie in the vocabulary of ", vocabulary_size);
  const double retain = 1.0 - o.dropout;
  const int64_t position_rows = o.max_positions + kFirstPosition;
  encoder_tokens = register_module("encoder_tokens",
                                   makeEmbedding(vocabulary_size, o.embed_dim, ids.pad));
  encoder_positions = register_module("encoder_positions",
                                      makeEmbedding(position_rows, o.embed_dim, kPadPosition));
  decoder_tokens = register_module("decoder_tokens",
                                   makeEmbedding(vocabulary_size, o.embed_dim, ids.pad));
  decoder_positions = register_module("decoder_positions",
                                      makeEmbedding(position_rows, o.embed_dim, kPadPosition));
  encoder_fc1 = register_module(
      "encoder_fc1", WeightNormLinear(o.embed_dim, o.channels, linearStd(o.embed_dim, retain)));
  encoder_fc2 = register_module(
      "encoder_fc2", WeightNormLinear(o.channels, o.embed_dim, linearStd(o.channels, 1.0)));
  decoder_fc1 = register_module(
      "decoder_fc1", WeightNormLinear(o.embed_dim, o.channels, linearStd(o.embed_dim, retain)));
  decoder_fc2 = register_module(
      "decoder_fc2", WeightNormLinear(o.channels, o.out_embed_dim, linearStd(o.channels, 1.0)));
  decoder_fc3 = register_module(
      "decoder_fc3",
      WeightNormLinear(o.out_embed_dim, vocabulary_size, linearStd(o.out_embed_dim, retain)));
  encoder_convs = register_module("encoder_convs", torch::nn::ModuleList());
  decoder_convs = register_module("decoder_convs", torch::nn::ModuleList());
  attention_in = register_module("attention_in", torch::nn::ModuleList());
  attention_out = register_module("attention_out", torch::nn::ModuleList());
  GatedConvBlockOptions conv;
  conv.input_channels = conv.output_channels = o.channels;
  conv.kernel_width = o.kernel_width;
  conv.dropout = o.dropout;
  conv.weight_norm = true;
  for (int64_t i = 0; i < o.encoder_layers; ++i) encoder_convs->push_back(GatedConvBlock(conv));
  conv.padding = ConvPadding::Causal;
  conv.residual = false;  // the decoder adds it after the attention
  for (int64_t i = 0; i < o.decoder_layers; ++i) {
    decoder_convs->push_back(GatedConvBlock(conv));
    attention_in->push_back(
        WeightNormLinear(o.channels, o.embed_dim, linearStd(o.channels, 1.0)));
    attention_out->push_back(
        WeightNormLinear(o.embed_dim, o.channels, linearStd(o.embed_dim, 1.0)));
  }
}

torch::Tensor ConvS2S::embed(torch::nn::Embedding& tokens, torch::nn::Embedding& positions,
                             const at::Tensor& ids, const at::Tensor& position,
                             const at::Tensor& pad) {
  TORCH_CHECK(position.numel() == 0 || position.max().item<int64_t>() <
                                           options_.max_positions + kFirstPosition,
              "ConvS2S: a sequence is longer than max_positions (", options_.max_positions, ")");
  torch::Tensor p = pad.defined() ? position.masked_fill(pad, kPadPosition) : position;
  return torch::dropout(tokens(ids) + positions(p), options_.dropout, is_training());
}

EncoderMemory ConvS2S::encode(const at::Tensor& source, const at::Tensor& source_pad) {
  TORCH_CHECK(source.dim() == 2 && source.scalar_type() == torch::kLong && source_pad.defined() &&
                  source_pad.sizes() == source.sizes(),
              "ConvS2S: source and source_pad must be (S, B), source int64");
  const torch::Tensor pad = source_pad.to(torch::kBool);
  const torch::Tensor positions = pad.logical_not().to(torch::kLong).cumsum(0) + (kFirstPosition - 1);
  const torch::Tensor embedded = embed(encoder_tokens, encoder_positions, source, positions, pad);
  torch::Tensor x = encoder_fc1(embedded);
  for (const auto& module : *encoder_convs)
    x = module->as<GatedConvBlockImpl>()->forward(x, pad);
  x = encoder_fc2(x).masked_fill(pad.unsqueeze(-1), 0.0);
  x = scaleGradient(x, 1.0 / (2.0 * static_cast<double>(options_.decoder_layers)));
  EncoderMemory memory;
  memory.states = x;  // attention keys
  memory.mask_pad = pad;
  memory.extras.push_back((x + embedded) * std::sqrt(0.5));  // attention values
  return memory;
}

DecoderOutput ConvS2S::decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                              const EncoderMemory& memory, const SequenceState& state,
                              bool keep_attention) {
  const auto& o = options_;
  TORCH_CHECK(target_in.dim() == 2 && target_in.scalar_type() == torch::kLong,
              "ConvS2S: target_in must be (T, B) int64, got ", target_in.sizes());
  TORCH_CHECK(memory.states.defined() && memory.extras.size() == 1 &&
                  memory.states.size(1) == target_in.size(1),
              "ConvS2S: the memory must come from ConvS2S::encode with the target's batch");
  TORCH_CHECK(state.empty() || (state.tensors.size() == 1 &&
                                static_cast<int64_t>(state.children.size()) == o.decoder_layers),
              "ConvS2S: the state must hold the step count and one child per decoder layer");
  const int64_t T = target_in.size(0), B = target_in.size(1);
  const torch::Tensor pad = target_pad.defined() ? target_pad.to(torch::kBool) : torch::Tensor();
  const torch::Tensor seen =
      state.empty() ? torch::zeros({B, 1}, target_in.options()) : state.tensors[0];
  const torch::Tensor positions =
      torch::arange(T, target_in.options()).unsqueeze(1) + seen.t() + kFirstPosition;  // (T, B)
  const torch::Tensor g = embed(decoder_tokens, decoder_positions, target_in, positions, pad);
  // Keys (B, E, S), values (B, S, E); c is scaled by sqrt(S) with S real source steps.
  const torch::Tensor keys = memory.states.permute({1, 2, 0});
  const torch::Tensor values = memory.extras[0].transpose(0, 1);
  const torch::Tensor source_pad = memory.mask_pad.t().unsqueeze(1);  // (B, 1, S)
  const torch::Tensor source_scale =
      memory.mask_pad.logical_not().sum(0).to(g.scalar_type()).sqrt().view({B, 1, 1});
  DecoderOutput out;
  out.state.tensors.push_back(seen + T);
  torch::Tensor x = decoder_fc1(g);
  for (int64_t i = 0; i < o.decoder_layers; ++i) {
    SequenceOutput conv = decoder_convs[i]->as<GatedConvBlockImpl>()->forwardSequence(
        x, pad, state.child(static_cast<size_t>(i), "ConvS2S decoder"));
    out.state.children.push_back(std::move(conv.state));
    const torch::Tensor h = conv.features;  // (T, B, C)
    const torch::Tensor z =
        ((attention_in[i]->as<WeightNormLinearImpl>()->forward(h) + g) * std::sqrt(0.5))
            .transpose(0, 1);  // (B, T, E)
    const torch::Tensor scores = torch::bmm(z, keys).masked_fill(
        source_pad, -std::numeric_limits<double>::infinity());
    const torch::Tensor a = torch::softmax(scores, -1);  // (B, T, S)
    if (keep_attention) out.attention.push_back(a);
    const torch::Tensor c = (torch::bmm(a, values) * source_scale).transpose(0, 1);  // (T, B, E)
    const torch::Tensor attended =
        (attention_out[i]->as<WeightNormLinearImpl>()->forward(c) + h) * std::sqrt(0.5);
    x = (attended + x) * std::sqrt(0.5);
  }
  x = torch::dropout(decoder_fc2(x), o.dropout, is_training());
  out.logits = decoder_fc3(x);
  return out;
}

}  // namespace recurlab::models
