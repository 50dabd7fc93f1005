#include "models/seq2seq/seq2seq_model.h"

#include <torch/torch.h>

#include <stdexcept>

#include "models/json_options.h"
#include "models/seq2seq/transformer.h"

namespace recurlab::models {

EncoderMemory EncoderMemory::indexSelect(const at::Tensor& index) const {
  EncoderMemory out;
  out.states = states.index_select(1, index);
  out.mask_pad = mask_pad.index_select(1, index);
  for (const auto& extra : extras) out.extras.push_back(extra.index_select(1, index));
  return out;
}

namespace {

// The keys every Transformer variant shares; defaults of fairseq's transformer_iwslt_de_en.
TransformerSeq2SeqOptions readTransformerOptions(JsonOptions& j) {
  TransformerSeq2SeqOptions o;
  o.encoder_layers = j.getInt("encoder_layers", 6, 1, 64);
  o.decoder_layers = j.getInt("decoder_layers", 6, 1, 64);
  o.d_model = j.getInt("d_model", 512, 4, 1 << 16);
  o.heads = j.getInt("heads", 4, 1, 1024);
  if (o.d_model % o.heads != 0)
    throw std::invalid_argument("Transformer: key 'd_model' (" + std::to_string(o.d_model) +
                                ") must be a multiple of key 'heads' (" +
                                std::to_string(o.heads) + ")");
  o.dropout = j.getDouble("dropout", 0.1, 0.0, 0.99);
  o.attention_dropout = j.getDouble("attention_dropout", 0.0, 0.0, 0.99);
  o.pre_norm = j.getBool("pre_norm", false);
  return o;
}

std::shared_ptr<Seq2SeqModel> makeTransformer(const std::string& name,
                                              const nlohmann::json& config,
                                              int64_t vocabulary_size,
                                              const Seq2SeqSpecialIds& ids) {
  JsonOptions j(config, "model '" + name + "'");
  TransformerSeq2SeqOptions o = readTransformerOptions(j);
  auto& f = o.feed_forward;
  if (name == "transformer") {
    f.kind = "relu";
    f.d_ff = j.getInt("ffn_hidden", 1024, 1, 1 << 20);
    f.activation_dropout = j.getDouble("activation_dropout", 0.0, 0.0, 0.99);
  } else if (name == "transformer_sru") {
    f.kind = "sru";
    f.d_ff = j.getInt("ffn_hidden", 1024, 1, 1 << 20);
    f.sru_dropout = j.getDouble("sru_dropout", o.dropout, 0.0, 0.99);
    o.encoder_bidirectional = j.getBool("encoder_bidirectional", false);
  } else {
    f.kind = "self_iru";
    f.self_iru_depth = j.getInt("self_iru_depth", 2, 0, 8);
  }
  j.finish();
  return std::make_shared<TransformerSeq2Seq>(o, vocabulary_size, ids);
}

}  // namespace

std::shared_ptr<Seq2SeqModel> makeSeq2SeqModel(const std::string& name,
                                               const nlohmann::json& config,
                                               int64_t vocabulary_size,
                                               const Seq2SeqSpecialIds& ids) {
  if (name == "transformer" || name == "transformer_sru" || name == "transformer_self_iru")
    return makeTransformer(name, config, vocabulary_size, ids);
  std::string known;
  for (const auto& n : seq2seqModelNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown translation model '" + name + "'; known: " + known);
}

std::vector<std::string> seq2seqModelNames() {
  return {"transformer", "transformer_sru", "transformer_self_iru"};
}

}  // namespace recurlab::models
