#pragma once
// A recurrent encoder-decoder with attention whose recurrent stacks come from the encoder
// registry (models/registry.h: "sru", "lstm", "qrnn", ...), as OpenNMT users run SRU:
//   encoder  H = encoder(dropout(E[source]))                      (may be bidirectional)
//   decoder  h = decoder(dropout(E[target_in]))                   (must be causal: it carries
//            its state step by step)
//   Luong "general" attention: a = softmax(h · (W_a H)ᵀ) over real source steps, c = a · H,
//   o = tanh(W_o [c ; h]), logits = dropout(o) · Eᵀ (one joint, tied embedding)
// No input feeding (the decoder would become sequential, OpenNMT's -input_feed 0 with SRU): the
// decoder runs over the whole target prefix in parallel. The decoder starts from its empty state.
// Decoder state: the decoder stack's own state. Memory extras: [W_a H (S, B, decoder size)].
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include <memory>

#include "models/encoders/sequence_encoder.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::models {

struct RnnSeq2SeqOptions {
  int64_t embed_dim = 256;
  double dropout = 0.1;  // on embeddings and on o
};

class RnnSeq2Seq : public Seq2SeqModel {
 public:
  // encoder, decoder: built by the registry with input size embed_dim; decoder->causal().
  RnnSeq2Seq(RnnSeq2SeqOptions options, std::shared_ptr<SequenceEncoder> encoder,
             std::shared_ptr<SequenceEncoder> decoder, int64_t vocabulary_size,
             Seq2SeqSpecialIds ids);

  EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) override;
  DecoderOutput decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                       const EncoderMemory& memory, const SequenceState& state,
                       bool keep_attention = false) override;
  int64_t vocabularySize() const override { return vocabulary_size_; }
  const Seq2SeqSpecialIds& specialIds() const override { return ids_; }
  int64_t attentionCount() const override { return 1; }

  torch::nn::Embedding embedding{nullptr};
  std::shared_ptr<SequenceEncoder> encoder, decoder;
  torch::nn::Linear attention_keys{nullptr}, output{nullptr};

 private:
  RnnSeq2SeqOptions options_;
  int64_t vocabulary_size_;
  Seq2SeqSpecialIds ids_;
};

}  // namespace recurlab::models
