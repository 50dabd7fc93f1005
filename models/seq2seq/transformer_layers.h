#pragma once
// The encoder and decoder layers of the Transformer as fairseq builds them:
//   post-norm (default)  x = LN(x + drop(Attn x)),  x = LN(x + drop(FFN x))
//   pre-norm             x = x + drop(Attn(LN x)),  x = x + drop(FFN(LN x))
// The decoder layer runs self-attention (causal), encoder attention, then the feed-forward block.
// Its state: tensors [self keys, self values, encoder keys, encoder values], all projected and
// batch-first (B, P or S, D), and one child, the feed-forward block's own state (an SRU's c).
#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "models/layers/multi_head_attention.h"
#include "models/layers/sequence_state.h"
#include "models/seq2seq/transformer_feed_forward.h"

namespace recurlab::models {

struct TransformerLayerOptions {
  int64_t d_model = 0;
  int64_t heads = 1;
  double dropout = 0.0;
  double attention_dropout = 0.0;
  bool pre_norm = false;
  TransformerFeedForwardOptions feed_forward;
};

class TransformerSeq2SeqEncoderLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerSeq2SeqEncoderLayerImpl(TransformerLayerOptions options);
  // x (S, B, D); mask_pad (S, B) bool, true = pad.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask_pad);

  MultiHeadAttention self_attention{nullptr};
  torch::nn::LayerNorm self_attention_norm{nullptr}, final_norm{nullptr};
  TransformerFeedForward feed_forward{nullptr};

 private:
  TransformerLayerOptions options_;
};
TORCH_MODULE(TransformerSeq2SeqEncoderLayer);

struct DecoderLayerOutput {
  torch::Tensor features;   // (T, B, D)
  SequenceState state;
  torch::Tensor attention;  // (B, T, S) encoder attention averaged over heads, when asked
};

class TransformerSeq2SeqDecoderLayerImpl : public torch::nn::Module {
 public:
  explicit TransformerSeq2SeqDecoderLayerImpl(TransformerLayerOptions options);
  // x (T, B, D) the steps after those `state` has seen; target_pad (T, B) or undefined;
  // memory (S, B, D) with memory_pad (S, B).
  DecoderLayerOutput forward(const torch::Tensor& x, const torch::Tensor& target_pad,
                             const torch::Tensor& memory, const torch::Tensor& memory_pad,
                             const SequenceState& state, bool need_attention);

  MultiHeadAttention self_attention{nullptr}, encoder_attention{nullptr};
  torch::nn::LayerNorm self_attention_norm{nullptr}, encoder_attention_norm{nullptr},
      final_norm{nullptr};
  TransformerFeedForward feed_forward{nullptr};

 private:
  TransformerLayerOptions options_;
};
TORCH_MODULE(TransformerSeq2SeqDecoderLayer);

}  // namespace recurlab::models
