#include "tasks/qa/qa_config.h"

#include <stdexcept>
#include <map>

#include "experiments/harness/model_map.h"
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
  readRunKeys(j, "qa", c.seed, c.keep_model, {"best", "last", "none"});
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
  const auto shared = readObjectKeys(j, {"reader", "train"});
  c.reader = shared.at("reader");
  c.train = shared.at("train");
  ModelMapFormat format;
  format.where = "qa config";
  format.registered = models::encoderNames();
  format.entry_form =
      "{\"encoder\": <registry name>, \"config\": {...}, \"concat_layers\": bool, ...}";
  format.objects = {"config", "reader", "train"};
  std::map<std::string, ReaderEncoderSpec> encoders;
  const auto entries = readModelMap(j, format, [&](const ModelMapEntry& m, JsonOptions& keys) {
    if (keys.has("layers"))
      throw std::invalid_argument(m.where + ": key 'layers' belongs in 'config' (config.layers: "
                                  "the encoder's layers; with concat_layers, the one-layer "
                                  "encoders stacked and concatenated)");
    auto& e = encoders[m.name];
    e.concat_layers = keys.getBool("concat_layers", false);
    if (e.concat_layers) {
      JsonOptions layers(m.objects.at("config"), m.where + ".config");
      e.layers = layers.getInt("layers", 1, 1, 64);
    }
    e.layer_dropout = keys.getDouble("layer_dropout", 0.0, 0.0, 0.99);
  });
  for (const auto& m : entries) {
    QaModelSpec spec;
    spec.name = m.name;
    spec.encoder = encoders.at(m.name);
    spec.encoder.encoder = m.registry_name;
    spec.encoder.config = m.objects.at("config");
    spec.reader = m.objects.at("reader");
    spec.train = m.objects.at("train");
    c.models.push_back(spec);
  }
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
