#include "tasks/lm/lm_config.h"

#include <filesystem>
#include <stdexcept>
#include <map>

#include "experiments/harness/model_map.h"
#include "common/json_options.h"
#include "common/config_json.h"
#include "models/registry.h"

namespace recurlab::experiments {

LmCorpusFiles LmCorpusSpec::files(const std::string& data_dir) const {
  LmCorpusFiles f;
  f.format = format;
  f.max_train_symbols = max_train_symbols;
  auto under = [&](const std::string& p) {
    return p.empty() ? p : (std::filesystem::path(data_dir) / p).string();
  };
  if (name == "ptb-char" || name == "ptb-word" || name == "enwik8") {
    f.train = under(train);
    f.valid = under(valid);
    f.test = under(test);
  } else {
    f.train = train;
    f.valid = valid;
    f.test = test;
  }
  return f;
}

LmOptions LmOptions::fromJson(const nlohmann::json& json, const std::string& where) {
  JsonOptions j(json, where);
  LmOptions o;
  o.embed_dim = j.getInt("embed_dim", o.embed_dim, 1, 1 << 14);
  o.tie_embeddings = j.getBool("tie_embeddings", o.tie_embeddings);
  o.output_projection = j.getInt("output_projection", o.output_projection, 0, 1 << 14);
  o.embed_dropout = j.getDouble("embed_dropout", o.embed_dropout, 0.0, 0.99);
  o.output_dropout = j.getDouble("output_dropout", o.output_dropout, 0.0, 0.99);
  o.batch_size = j.getInt("batch_size", o.batch_size, 1, 1 << 16);
  o.bptt = j.getInt("bptt", o.bptt, 1, 1 << 16);
  o.eval_batch_size = j.getInt("eval_batch_size", o.eval_batch_size, 1, 1 << 16);
  j.finish();
  return o;
}

LanguageModelOptions LmOptions::model(int64_t vocab_size) const {
  LanguageModelOptions m;
  m.vocab_size = vocab_size;
  m.embed_dim = embed_dim;
  m.tie_embeddings = tie_embeddings;
  m.output_projection = output_projection;
  m.embed_dropout = embed_dropout;
  m.output_dropout = output_dropout;
  return m;
}

LmUnitOptions lmUnitOptions(const nlohmann::json& unit, const std::string& where) {
  LmUnitOptions o;
  o.lm = LmOptions::fromJson(unit.at("lm"), where + ".lm");
  JsonOptions t(unit.at("train"), where + ".train");
  o.optimizer = OptimizerOptions::read(t);
  o.trainer = TrainerOptions::read(t);
  t.finish();
  // Written by LmConfig::unitTemplate, so already checked: absent, no budget.
  o.budget.parameters = unit.value("budget", int64_t{0});
  o.budget.tolerance = unit.value("budget_tolerance", o.budget.tolerance);
  return o;
}

LmConfig LmConfig::fromJson(const nlohmann::json& json) {
  LmConfig c;
  JsonOptions j(json, "lm config");
  readRunKeys(j, "lm", c.seed, c.keep_model, {"best", "last", "none"});
  c.budget.parameters = j.getInt("budget", 0, 0, 1LL << 40);
  c.budget.tolerance = j.getDouble("budget_tolerance", c.budget.tolerance, 0.0, 1.0);
  {
    const auto corpus = j.getJson("corpus", nullptr);
    if (!corpus.is_object())
      throw std::invalid_argument("lm config: key 'corpus' must be an object such as "
                                  "{\"name\": \"ptb-char\"}");
    JsonOptions k(corpus, "lm config: corpus");
    auto& s = c.corpus;
    s.name = k.getString("name", "");
    if (s.name.empty()) throw std::invalid_argument("lm config: key 'corpus.name' is missing");
    s.max_train_symbols = k.getInt("max_train_symbols", 0, 0, 1LL << 40);
    if (s.name == "ptb-char" || s.name == "ptb-word") {
      const std::string stem = s.name == "ptb-char" ? "ptb/ptb.char." : "ptb/ptb.";
      s.format = LmCorpusFormat::Words;
      s.train = stem + "train.txt";
      s.valid = stem + "valid.txt";
      s.test = stem + "test.txt";
      s.metric = s.name == "ptb-char" ? "bpc" : "ppl";
    } else if (s.name == "enwik8") {
      s.format = LmCorpusFormat::Bytes;
      s.train = "enwik8/enwik8";
      s.metric = "bpc";
    } else {
      const auto format = k.getString("format", "", {"words", "chars", "bytes"});
      if (format.empty())
        throw std::invalid_argument("lm config: corpus '" + s.name + "' is not one of ptb-char, "
                                    "ptb-word, enwik8, so key 'corpus.format' (words, chars or "
                                    "bytes) and corpus.train/valid/test paths are needed");
      s.format = format == "words" ? LmCorpusFormat::Words
                 : format == "chars" ? LmCorpusFormat::Chars : LmCorpusFormat::Bytes;
      s.train = k.getString("train", "");
      s.valid = k.getString("valid", "");
      s.test = k.getString("test", "");
      if (s.train.empty()) throw std::invalid_argument("lm config: key 'corpus.train' is missing");
      s.metric = k.getString("metric", format == "words" ? "ppl" : "bpc", {"bpc", "ppl"});
    }
    k.finish();
  }
  const auto shared = readObjectKeys(j, {"lm", "train"});
  c.lm = shared.at("lm");
  c.train = shared.at("train");
  ModelMapFormat format;
  format.where = "lm config";
  format.registered = models::encoderNames();
  format.entry_form = "{\"encoder\": <registry name>, \"config\": {...}}";
  format.objects = {"config", "lm", "train"};
  std::map<std::string, std::string> init_from;
  const auto entries = readModelMap(j, format, [&](const ModelMapEntry& e, JsonOptions& keys) {
    init_from[e.name] = keys.getString("init_from", "");
  });
  for (const auto& e : entries)
    c.models.push_back({e.name, e.registry_name, e.objects.at("config"), e.objects.at("lm"),
                        e.objects.at("train"), init_from.at(e.name)});
  j.finish();
  for (const auto& m : c.models) {  // every key checked now, not hours later
    const auto unit = c.unitTemplate(m);
    const std::string where = "lm config: models." + m.name;
    const auto o = lmUnitOptions(unit, where);
    try {
      models::makeEncoder(m.encoder, unit.at("config"), o.lm.embed_dim);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ".config: " + e.what());
    }
  }
  return c;
}

const LmModelSpec& LmConfig::model(const std::string& name) const {
  return specNamed(models, name, "lm config");
}

nlohmann::json LmConfig::unitTemplate(const LmModelSpec& m) const {
  nlohmann::json unit = {{"encoder", m.encoder}, {"config", m.config}, {"lm", withOverrides(lm, m.lm)},
                         {"train", withOverrides(train, m.train)}};
  // Absent otherwise, so units without them keep their config (and their checkpoints).
  if (budget.parameters > 0) {
    unit["budget"] = budget.parameters;
    unit["budget_tolerance"] = budget.tolerance;
  }
  if (!m.init_from.empty()) unit["init_from"] = m.init_from;
  return unit;
}

}  // namespace recurlab::experiments
