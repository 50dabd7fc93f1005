#include "models/seq2seq/seq2seq_model.h"

#include <torch/torch.h>

#include <stdexcept>

#include "common/json_options.h"
#include "models/registry.h"
#include "models/seq2seq/convs2s.h"
#include "models/seq2seq/rnn_seq2seq.h"
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

// The block R of transformer_recurrent: registry encoder `name` with its own keys `config`, one
// layer unless `config` says otherwise, its width ffn_hidden; a decoder's must be causal.
FeedForwardRecurrenceFactory recurrenceFactory(const std::string& name, nlohmann::json config) {
  const std::string who = "model 'transformer_recurrent': key 'recurrence_config'";
  if (!config.is_object()) throw std::invalid_argument(who + " must be an object");
  for (const char* key : {"hidden", "bidirectional"})
    if (config.contains(key))
      throw std::invalid_argument(who + " sets '" + key + "'; ffn_hidden sets the width and " +
                                  "encoder_bidirectional the direction of the encoder's blocks");
  if (!config.contains("layers")) config["layers"] = 1;
  return [name, config](int64_t input_size, int64_t hidden, bool bidirectional) {
    nlohmann::json c = config;
    c["hidden"] = hidden;
    if (bidirectional) c["bidirectional"] = true;
    std::shared_ptr<SequenceEncoder> r = makeEncoder(name, c, input_size);
    if (!bidirectional && !r->causal())
      throw std::invalid_argument("model 'transformer_recurrent': key 'recurrence' names '" + name +
                                  "' with a configuration that looks ahead; a decoder's block "
                                  "must be causal");
    return r;
  };
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
  } else if (name == "transformer_recurrent") {
    f.kind = "recurrence";
    f.d_ff = j.getInt("ffn_hidden", 1024, 1, 1 << 20);
    o.encoder_bidirectional = j.getBool("encoder_bidirectional", false);
    f.make_recurrence = recurrenceFactory(j.getString("recurrence", "min_gru", encoderNames()),
                                          j.getJson("recurrence_config", nlohmann::json::object()));
  } else {
    f.kind = "self_iru";
    f.self_iru_depth = j.getInt("self_iru_depth", 2, 0, 8);
  }
  j.finish();
  return std::make_shared<TransformerSeq2Seq>(o, vocabulary_size, ids);
}

// Defaults of fairseq's fconv_iwslt_de_en.
std::shared_ptr<Seq2SeqModel> makeConvS2S(const nlohmann::json& config, int64_t vocabulary_size,
                                          const Seq2SeqSpecialIds& ids) {
  JsonOptions j(config, "model 'convs2s'");
  ConvS2SOptions o;
  o.embed_dim = j.getInt("embed_dim", 256, 1, 1 << 16);
  o.channels = j.getInt("channels", 256, 1, 1 << 16);
  o.encoder_layers = j.getInt("encoder_layers", 4, 0, 64);
  o.decoder_layers = j.getInt("decoder_layers", 3, 1, 64);
  o.kernel_width = j.getInt("kernel_width", 3, 1, 63);
  if (o.kernel_width % 2 == 0)
    throw std::invalid_argument("model 'convs2s': key 'kernel_width' must be odd (the encoder "
                                "centres its convolutions), got " +
                                std::to_string(o.kernel_width));
  o.out_embed_dim = j.getInt("out_embed_dim", 256, 1, 1 << 16);
  o.dropout = j.getDouble("dropout", 0.1, 0.0, 0.99);
  o.max_positions = j.getInt("max_positions", 1024, 1, 1 << 20);
  j.finish();
  return std::make_shared<ConvS2S>(o, vocabulary_size, ids);
}

// Keys: encoder / decoder (registry names, default "sru"), encoder_config / decoder_config
// (their own keys), embed_dim, dropout.
std::shared_ptr<Seq2SeqModel> makeRnnSeq2Seq(const nlohmann::json& config,
                                             int64_t vocabulary_size,
                                             const Seq2SeqSpecialIds& ids) {
  JsonOptions j(config, "model 'rnn_seq2seq'");
  RnnSeq2SeqOptions o;
  o.embed_dim = j.getInt("embed_dim", 256, 1, 1 << 16);
  o.dropout = j.getDouble("dropout", 0.1, 0.0, 0.99);
  const std::string encoder_name = j.getString("encoder", "sru", encoderNames());
  const std::string decoder_name = j.getString("decoder", "sru", encoderNames());
  const nlohmann::json encoder_config = j.getJson("encoder_config", nlohmann::json::object());
  const nlohmann::json decoder_config = j.getJson("decoder_config", nlohmann::json::object());
  j.finish();
  auto encoder = makeEncoder(encoder_name, encoder_config, o.embed_dim);
  auto decoder = makeEncoder(decoder_name, decoder_config, o.embed_dim);
  if (!decoder->causal())
    throw std::invalid_argument("model 'rnn_seq2seq': key 'decoder' names '" + decoder_name +
                                "' with a configuration that looks ahead; the decoder must be "
                                "causal (unidirectional)");
  return std::make_shared<RnnSeq2Seq>(o, encoder, decoder, vocabulary_size, ids);
}

}  // namespace

const std::vector<Seq2SeqEntry>& seq2seqEntries() {
  auto transformer = [](const std::string& name) {
    return [name](const nlohmann::json& config, int64_t vocabulary_size,
                  const Seq2SeqSpecialIds& ids) {
      return makeTransformer(name, config, vocabulary_size, ids);
    };
  };
  static const std::vector<Seq2SeqEntry> entries = {
      {"transformer",
       "Vaswani et al. (2017); keys: encoder_layers, decoder_layers, d_model, heads, ffn_hidden, "
       "dropout, attention_dropout, activation_dropout, pre_norm",
       transformer("transformer")},
      {"transformer_sru",
       "the Transformer with an SRU in place of each feed-forward block (Lei et al. 2018, App. "
       "B.3); keys: those of transformer but activation_dropout, and sru_dropout, "
       "encoder_bidirectional",
       transformer("transformer_sru")},
      {"transformer_recurrent",
       "the Transformer with a registry encoder R in place of each feed-forward block's first "
       "linear map and activation, fc2(R(x)), as transformer_sru does with the SRU (e.g. "
       "+minGRU, +HGRN); keys: those of transformer but activation_dropout, and recurrence (R's "
       "registry name, default min_gru), recurrence_config (R's own keys but hidden and "
       "bidirectional; layers 1 unless set), encoder_bidirectional",
       transformer("transformer_recurrent")},
      {"transformer_self_iru",
       "the Transformer with Self-IRU blocks (Zhang et al. 2021, App. A.1); keys: those of "
       "transformer but ffn_hidden and activation_dropout, and self_iru_depth",
       transformer("transformer_self_iru")},
      {"convs2s",
       "Gehring et al. (2017); keys: embed_dim, channels, encoder_layers, decoder_layers, "
       "kernel_width, out_embed_dim, dropout, max_positions",
       makeConvS2S},
      {"rnn_seq2seq",
       "any registry encoder and causal decoder with attention; keys: embed_dim, dropout, "
       "encoder, decoder, encoder_config, decoder_config",
       makeRnnSeq2Seq},
  };
  return entries;
}

std::shared_ptr<Seq2SeqModel> makeSeq2SeqModel(const std::string& name,
                                               const nlohmann::json& config,
                                               int64_t vocabulary_size,
                                               const Seq2SeqSpecialIds& ids) {
  for (const auto& entry : seq2seqEntries())
    if (entry.name == name) return entry.factory(config, vocabulary_size, ids);
  std::string known;
  for (const auto& n : seq2seqModelNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown translation model '" + name + "'; known: " + known);
}

std::string seq2seqModelListing() {
  // One entry a paragraph, wrapped at 100 columns.
  std::string text =
      "Models (config key models.<name>.model; its keys go in models.<name>.config):\n";
  for (const auto& entry : seq2seqEntries()) {
    std::string line = "  " + entry.name + ":";
    std::string word;
    auto flush = [&] {
      if (line.size() + 1 + word.size() > 100) {
        text += line + "\n";
        line = "   ";
      }
      line += " " + word;
      word.clear();
    };
    for (char c : entry.description) {
      if (c == ' ') {
        flush();
      } else {
        word += c;
      }
    }
    if (!word.empty()) flush();
    text += line + "\n";
  }
  return text;
}

std::vector<std::string> seq2seqModelNames() {
  std::vector<std::string> names;
  for (const auto& entry : seq2seqEntries()) names.push_back(entry.name);
  return names;
}

}  // namespace recurlab::models
