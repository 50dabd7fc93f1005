#pragma once
// ConvS2S (Gehring et al. 2017) as fairseq's fconv builds it:
//   encoder  x = dropout(E[token] + P[position]) -> fc1 -> gated conv blocks (same padding,
//            residual · sqrt(0.5)) -> fc2; keys = x, values = (x + embedding) · sqrt(0.5)
//            (§3.3), the encoder's gradient scaled by 1 / (2 · decoder layers) (§3.4)
//   decoder  g = dropout(E[token] + P[position]) -> fc1 -> per layer: causal gated conv h,
//            attention z = (W_in h + g) · sqrt(0.5), a = softmax(z · keysᵀ) over real source
//            steps, c = a · values · sqrt(S) (S = real source length, §3.4),
//            h' = (W_out c + h) · sqrt(0.5), x = (h' + x) · sqrt(0.5) -> fc2 -> dropout -> fc3
// Every Linear and conv is weight-normalized, initialized dropout-aware (App. A): Linear
// N(0, sqrt(p_retain / n_in)) for fc1 and fc3 and p_retain = 1 for the others, conv
// N(0, sqrt(4 p_retain / (k n_in))). Embeddings (token and learned position): N(0, 0.1), pad
// row 0. Positions count from 2 for the first real token, as the Transformer's.
//
// Decoder state: tensors [steps seen (B, 1) int64], one child per decoder layer: its conv's
// last k-1 inputs (the cached window of fairseq's LinearizedConvolution).
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>

#include "models/layers/weight_norm_linear.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::models {

struct ConvS2SOptions {
  int64_t embed_dim = 256;
  int64_t channels = 256;
  int64_t encoder_layers = 4;
  int64_t decoder_layers = 3;
  int64_t kernel_width = 3;  // odd, so the encoder's 'same' padding centres each step
  int64_t out_embed_dim = 256;
  double dropout = 0.1;
  int64_t max_positions = 1024;
};

class ConvS2S : public Seq2SeqModel {
 public:
  ConvS2S(ConvS2SOptions options, int64_t vocabulary_size, Seq2SeqSpecialIds ids);

  EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) override;
  DecoderOutput decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                       const EncoderMemory& memory, const SequenceState& state,
                       bool keep_attention = false) override;
  int64_t vocabularySize() const override { return vocabulary_size_; }
  const Seq2SeqSpecialIds& specialIds() const override { return ids_; }
  int64_t attentionCount() const override { return options_.decoder_layers; }

  torch::nn::Embedding encoder_tokens{nullptr}, encoder_positions{nullptr},
      decoder_tokens{nullptr}, decoder_positions{nullptr};
  WeightNormLinear encoder_fc1{nullptr}, encoder_fc2{nullptr}, decoder_fc1{nullptr},
      decoder_fc2{nullptr}, decoder_fc3{nullptr};
  torch::nn::ModuleList encoder_convs, decoder_convs, attention_in, attention_out;

 private:
  torch::Tensor embed(torch::nn::Embedding& tokens, torch::nn::Embedding& positions,
                      const at::Tensor& ids, const at::Tensor& position, const at::Tensor& pad);

  ConvS2SOptions options_;
  int64_t vocabulary_size_;
  Seq2SeqSpecialIds ids_;
};

}  // namespace recurlab::models
