#pragma once
// The one interface every translation model exposes (models/seq2seq/): the MT task trains
// with decode() on whole target prefixes (teacher forcing), and greedy and beam search call
// the same decode() one step at a time with the state carried. Every model (Transformer and
// its SRU / Self-IRU variants, ConvS2S, recurrent seq2seq) goes through this path alone.
//
// Conventions: token ids are int64, time-major (L, B), right-padded; pad masks are (L, B)
// bool, true = pad. Special ids come from the subword model and are passed in
// Seq2SeqSpecialIds. The decoder input of a target y_1..y_n is [bos, y_1, ..., y_n] and its
// output is scored against [y_1, ..., y_n, eos].
#include <torch/nn/module.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/layers/sequence_state.h"

namespace recurlab::models {

struct Seq2SeqSpecialIds {
  int64_t pad = 0;
  int64_t unk = 1;
  int64_t bos = 2;
  int64_t eos = 3;
};

// What the encoder hands the decoder: per-source-position tensors, batch in dimension 1.
struct EncoderMemory {
  at::Tensor states;    // (S, B, D) the encoder's output
  at::Tensor mask_pad;  // (S, B) bool, true = pad
  // Model-specific extras with batch in dimension 1 (ConvS2S: encoder output + source
  // embedding as the attention values; an RNN seq2seq: the encoder's final state as (1, B, H)).
  std::vector<at::Tensor> extras;

  // The same memory with batch columns `index` (int64): beam search replicates each source
  // beam times, then follows the surviving hypotheses.
  EncoderMemory indexSelect(const at::Tensor& index) const;
};

struct DecoderOutput {
  at::Tensor logits;     // (T, B, V) unnormalized scores of the next token at each step
  SequenceState state;   // after the last step: pass it back to decode the next steps
  // With keep_attention: one (B, T, S) tensor per decoder attention (per decoder layer for
  // the Transformers and ConvS2S, averaged over heads; one for an RNN seq2seq).
  std::vector<at::Tensor> attention;
};

class Seq2SeqModel : public torch::nn::Module {
 public:
  // source (S, B) int64, source_pad (S, B) bool.
  virtual EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) = 0;
  // target_in (T, B) int64: the decoder input after the steps `state` has seen (empty state
  // = from bos on); target_pad (T, B) bool or undefined (decoding steps: no pad). Decoding a
  // prefix one step at a time with the state carried gives the logits of the whole prefix at
  // once, to float tolerance, for every model.
  virtual DecoderOutput decode(const at::Tensor& target_in, const at::Tensor& target_pad,
                               const EncoderMemory& memory, const SequenceState& state,
                               bool keep_attention = false) = 0;
  virtual int64_t vocabularySize() const = 0;
  virtual const Seq2SeqSpecialIds& specialIds() const = 0;
  // Decoder attention maps per decoded step (for the report's heat maps): how many decode()
  // returns with keep_attention.
  virtual int64_t attentionCount() const = 0;
};

// `config` holds the model's own keys; a factory rejects unknown keys and bad values with an
// error naming the key. One joint (shared source/target) vocabulary.
using Seq2SeqFactory = std::function<std::shared_ptr<Seq2SeqModel>(
    const nlohmann::json& config, int64_t vocabulary_size, const Seq2SeqSpecialIds& ids)>;

// One translation model of the registry, as models/encoders/encoder_entry.h is one encoder: its
// name, a description listing its config keys (the MT driver's --help), and its factory.
struct Seq2SeqEntry {
  std::string name;
  std::string description;
  Seq2SeqFactory factory;
};

// The translation models, in the order --help lists them: "transformer", "transformer_sru",
// "transformer_recurrent", "transformer_self_iru", "convs2s", "rnn_seq2seq". A new model is one entry here.
const std::vector<Seq2SeqEntry>& seq2seqEntries();

std::shared_ptr<Seq2SeqModel> makeSeq2SeqModel(const std::string& name,
                                               const nlohmann::json& config,
                                               int64_t vocabulary_size,
                                               const Seq2SeqSpecialIds& ids);
std::vector<std::string> seq2seqModelNames();
// Every model with its config keys, for the MT driver's --help.
std::string seq2seqModelListing();

}  // namespace recurlab::models
