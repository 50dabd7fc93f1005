#include "tasks/qa/qa_config.h"

#include <stdexcept>

#include "common/json_options.h"
#include "common/config_json.h"
#include "models/registry.h"

namespace recurlab::experiments::qa {
namespace {

QaReaderOptions readReader(const nlohmann::json& json, const std::string& where) {
  JsonOptions j(json, where);
  QaReaderOptions r;
  r.embed_dim = j.getInt("embed_dim", r.embed_dim, 1, 4096);
  r.embed_dropout = j.getDouble("embed_dropout", r.embed_dropout, 0.0, 0.99);
  r.output_dropout = j.getDouble("output_dropout", r.output_dropout, 0.0, 0.99);
  r.tune_top = j.getInt("tune_top", r.tune_top, 0, 1LL << 30);
  r.min_count = j.getInt("min_count", r.min_count, 1, 1LL << 30);
  r.max_span = j.getInt("max_span", r.max_span, 1, 1000);
  j.finish();
  return r;
}

QaTrainOptions readTrain(const nlohmann::json& json, const std::string& where) {
  JsonOptions j(json, where);
  QaTrainOptions t;
  t.optimizer = OptimizerOptions::read(j);
  t.trainer = TrainerOptions::read(j);
  t.batch_size = j.getInt("batch_size", t.batch_size, 1, 1 << 16);
  j.finish();
  return t;
}

}  // namespace

QaConfig QaConfig::fromJson(const nlohmann::json& json) {
  QaConfig c;
  JsonOptions j(json, "qa config");
  j.getString("experiment", "qa", {"qa"});
  j.getString("description", "");
  c.seed = j.getInt("seed", c.seed, 0, (1LL << 53) - 1);
  c.keep_model = j.getString("keep_model", c.keep_model, {"best", "last", "none"});
  c.embeddings = j.getString("embeddings", "");
  {
    JsonOptions d(json.contains("data") ? json.at("data") : nlohmann::json::object(), "qa config: data");
    auto& o = c.data;
    o.protocol = d.getString("protocol", o.protocol, {"auto", "official", "offline"});
    o.split_seed = d.getInt("split_seed", o.split_seed, 0, (1LL << 53) - 1);
    // The upper bound is the dev file's article count, checked when it is read (offlineSplit).
    o.dev_articles = d.getInt("dev_articles", o.dev_articles, 1, 1LL << 40);
    o.max_train_questions = d.getInt("max_train_questions", 0, 0, 1LL << 40);
    o.max_dev_questions = d.getInt("max_dev_questions", 0, 0, 1LL << 40);
    o.max_context_chars = d.getInt("max_context_chars", 0, 0, 1LL << 40);
    o.train_file = d.getString("train", o.train_file);
    o.dev_file = d.getString("dev", o.dev_file);
    d.finish();
  }
  j.getJson("data", nullptr);
  c.reader = j.getJson("reader", nlohmann::json::object());
  c.train = j.getJson("train", nlohmann::json::object());
  if (!c.reader.is_object() || !c.train.is_object())
    throw std::invalid_argument("qa config: keys 'reader' and 'train' must be objects");
  if (!json.contains("models") || !json.at("models").is_object() || json.at("models").empty())
    throw std::invalid_argument(
        "qa config: key 'models' must be a non-empty object of name -> {\"encoder\": <registry "
        "name>, \"config\": {...}, \"concat_layers\": bool, ...}");
  for (auto it = json.at("models").begin(); it != json.at("models").end(); ++it) {
    const std::string where = "qa config: models." + it.key();
    JsonOptions m(it.value(), where);
    QaModelSpec spec;
    spec.name = it.key();
    auto& e = spec.encoder;
    e.encoder = m.getString("encoder", "", models::encoderNames());
    if (e.encoder.empty()) throw std::invalid_argument(where + ": key 'encoder' is missing");
    e.config = m.getJson("config", nlohmann::json::object());
    if (it.value().contains("layers"))
      throw std::invalid_argument(where + ": key 'layers' belongs in 'config' (config.layers: the "
                                  "encoder's layers; with concat_layers, the one-layer encoders "
                                  "stacked and concatenated)");
    e.concat_layers = m.getBool("concat_layers", false);
    if (e.concat_layers) {
      JsonOptions layers(e.config, where + ".config");
      e.layers = layers.getInt("layers", 1, 1, 64);
    }
    e.layer_dropout = m.getDouble("layer_dropout", 0.0, 0.0, 0.99);
    spec.reader = m.getJson("reader", nlohmann::json::object());
    spec.train = m.getJson("train", nlohmann::json::object());
    m.finish();
    if (!e.config.is_object() || !spec.reader.is_object() || !spec.train.is_object())
      throw std::invalid_argument(where + ": keys 'config', 'reader' and 'train' must be objects");
    c.models.push_back(spec);
  }
  j.getJson("models", nullptr);
  j.finish();
  for (const auto& m : c.models) {
    // Every check before any work: the reader's and train keys, and the encoder itself.
    const auto reader = c.readerOptions(m);
    c.trainOptions(m);
    try {
      auto config = m.encoder.config;
      if (m.encoder.concat_layers) config["layers"] = 1;
      models::makeEncoder(m.encoder.encoder, config, reader.embed_dim);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("qa config: models." + m.name + ".config: " + e.what());
    }
  }
  return c;
}

QaReaderOptions QaConfig::readerOptions(const QaModelSpec& m) const {
  return readReader(withOverrides(reader, m.reader), "qa config: models." + m.name + ".reader");
}

QaTrainOptions QaConfig::trainOptions(const QaModelSpec& m) const {
  return readTrain(withOverrides(train, m.train), "qa config: models." + m.name + ".train");
}

nlohmann::json QaConfig::unitJson(const QaModelSpec& m) const {
  return {{"encoder", m.encoder.encoder},
          {"config", m.encoder.config},
          {"concat_layers", m.encoder.concat_layers},
          {"layer_dropout", m.encoder.layer_dropout},
          {"reader", withOverrides(reader, m.reader)},
          {"train", withOverrides(train, m.train)}};
}

}  // namespace recurlab::experiments::qa
