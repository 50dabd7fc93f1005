#pragma once
// The Transformer encoder-decoder as fairseq builds it, with one joint
// vocabulary: the source embedding, the target embedding and the output projection are one
// matrix E (logits = x·Eᵀ, no bias). Embedding: x = sqrt(d)·E[token] + PE(position), dropout; the
// encoder zeroes pad steps. The feed-forward block is pluggable (transformer_feed_forward.h):
// "transformer" (ReLU), "transformer_sru" (Lei et al. 2018, App. B.3), "transformer_recurrent"
// (any registry encoder where the SRU is), "transformer_self_iru"
// (Zhang et al. 2021, App. A.1-A.2).
//
// Decoder state: one child per decoder layer (transformer_layers.h); its prefix length is the
// number of cached self-attention keys.
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include "models/seq2seq/seq2seq_model.h"
#include "models/seq2seq/transformer_layers.h"

namespace recurlab::models {

struct TransformerSeq2SeqOptions {
  int64_t encoder_layers = 6;
  int64_t decoder_layers = 6;
  int64_t d_model = 512;
  int64_t heads = 4;
  double dropout = 0.1;
  double attention_dropout = 0.0;
  bool pre_norm = false;
  // The feed-forward block of every layer (d_model is set from above); encoder_bidirectional
  // applies to an SRU block of the encoder only.
  TransformerFeedForwardOptions feed_forward;
  bool encoder_bidirectional = false;
};

class TransformerSeq2Seq : public Seq2SeqModel {
 public:
  TransformerSeq2Seq(TransformerSeq2SeqOptions options, int64_t vocabulary_size,
                         Seq2SeqSpecialIds ids);

  EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) override;
  DecoderOutput decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                       const EncoderMemory& memory, const SequenceState& state,
                       bool keep_attention = false) override;
  int64_t vocabularySize() const override { return vocabulary_size_; }
  const Seq2SeqSpecialIds& specialIds() const override { return ids_; }
  int64_t attentionCount() const override { return options_.decoder_layers; }
  const TransformerSeq2SeqOptions& options() const { return options_; }

  torch::nn::Embedding embedding{nullptr};
  torch::nn::ModuleList encoder_layers, decoder_layers;
  torch::nn::LayerNorm encoder_norm{nullptr}, decoder_norm{nullptr};  // pre-norm only

 private:
  // sqrt(d)·E[tokens] + PE(positions) with pad steps' PE zeroed, then dropout.
  torch::Tensor embed(const at::Tensor& tokens, const at::Tensor& positions,
                      const at::Tensor& pad);

  TransformerSeq2SeqOptions options_;
  int64_t vocabulary_size_;
  Seq2SeqSpecialIds ids_;
};

}  // namespace recurlab::models
