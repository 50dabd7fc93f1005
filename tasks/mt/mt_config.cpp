#include "tasks/mt/mt_config.h"

#include <stdexcept>
#include <map>

#include "experiments/harness/model_map.h"
#include "common/json_options.h"
#include "common/config_json.h"
#include "tasks/mt/mt_train_options.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::experiments {
namespace {

MtFilePair filePair(JsonOptions& j, const std::string& key, const std::string& where) {
  const auto value = j.getJson(key, nlohmann::json());
  if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_string())
    throw std::invalid_argument(where + ": key '" + key + "' = " + value.dump() +
                                " is invalid; expected [\"source file\", \"target file\"]");
  return {value[0].get<std::string>(), value[1].get<std::string>()};
}

}  // namespace

MtDecodeOptions MtDecodeOptions::fromJson(const nlohmann::json& decode, const std::string& where) {
  JsonOptions j(decode, where);
  MtDecodeOptions o;
  o.beam = j.getInt("beam", o.beam, 1, 1000);
  o.alpha = j.getDouble("alpha", o.alpha, 0.0, 10.0);
  o.length_penalty = models::parseLengthPenalty(j.getString(
      "length_penalty", models::lengthPenaltyName(o.length_penalty), {"gnmt", "fairseq"}));
  o.max_length_a = j.getDouble("max_length_a", o.max_length_a, 0.0, 100.0);
  o.max_length_b = j.getInt("max_length_b", o.max_length_b, 0, 10000);
  o.test_every_epoch = j.getString("test_every_epoch", o.test_every_epoch, {"beam", "greedy", "none"});
  o.average_last = j.getInt("average_last", o.average_last, 1, 1000);
  o.batch_sentences = j.getInt("batch_sentences", o.batch_sentences, 1, 100000);
  o.attention_sentence = j.getInt("attention_sentence", o.attention_sentence, 0, 1 << 30);
  j.finish();
  return o;
}

nlohmann::json MtDecodeOptions::keptJson() const {
  return {{"beam", beam},
          {"alpha", alpha},
          {"length_penalty", models::lengthPenaltyName(length_penalty)},
          {"max_length_a", max_length_a},
          {"max_length_b", max_length_b},
          {"batch_sentences", batch_sentences}};
}

MtConfig MtConfig::fromJson(const nlohmann::json& json) {
  MtConfig c;
  const std::string where = "mt config";
  JsonOptions j(json, where);
  readRunKeys(j, "mt", c.seed, c.keep_model, {"best", "last", "averaged", "none"});

  JsonOptions data(j.getJson("data", nlohmann::json::object()), where + ".data");
  c.source_language = data.getString("source_language", c.source_language);
  c.target_language = data.getString("target_language", c.target_language);
  c.train_files = filePair(data, "train", where + ".data");
  c.valid_files = filePair(data, "valid", where + ".data");
  c.test_files = filePair(data, "test", where + ".data");
  c.max_train_pairs = data.getInt("max_train_pairs", 0, 0, 1LL << 40);
  c.max_valid_pairs = data.getInt("max_valid_pairs", 0, 0, 1LL << 40);
  c.max_test_pairs = data.getInt("max_test_pairs", 0, 0, 1LL << 40);
  c.max_length = data.getInt("max_length", c.max_length, 1, 100000);
  c.empty_lines = data.getString("empty_lines", c.empty_lines, {"skip", "error"});
  data.finish();

  JsonOptions sub(j.getJson("subwords", nlohmann::json::object()), where + ".subwords");
  c.subword_type = sub.getString("type", c.subword_type, {"bpe", "unigram"});
  c.vocabulary_size = sub.getInt("vocabulary_size", c.vocabulary_size, 16, 1 << 20);
  sub.finish();

  c.train = j.getJson("train", nlohmann::json::object());
  c.decode = j.getJson("decode", nlohmann::json::object());
  ModelMapFormat format;
  format.where = where;
  format.registry_key = "model";
  format.registered = models::seq2seqModelNames();
  format.registered_noun = "models";
  format.entry_form = "{\"model\": <registry name>, \"config\": {...}, \"train\": {...}}";
  for (const auto& e : readModelMap(j, format))
    c.models.push_back({e.name, e.registry_name, e.objects.at("config"), e.objects.at("train")});
  j.finish();
  // Every key of every unit checked now, before the data and the subword model: the train
  // and decode keys, and each model's by building it (at the configured vocabulary size).
  for (const auto& m : c.models) {
    const auto unit = c.unitTemplate(m);
    const std::string at = where + ": models." + m.name;
    MtTrainOptions::fromJson(unit.at("train"), at + ".train");
    try {
      models::makeSeq2SeqModel(m.model, m.config, c.vocabulary_size, {0, 1, 2, 3});
    } catch (const std::exception& e) {
      throw std::invalid_argument(at + ".config: " + e.what());
    }
  }
  MtDecodeOptions::fromJson(c.decode, where + ".decode");
  return c;
}

const MtModelSpec& MtConfig::model(const std::string& name) const {
  return specNamed(models, name, "mt config");
}

nlohmann::json MtConfig::unitTemplate(const MtModelSpec& m) const {
  return {{"model", m.model}, {"config", m.config}, {"train", withOverrides(train, m.train)},
          {"decode", decode}};
}

}  // namespace recurlab::experiments
