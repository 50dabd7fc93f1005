#include "tasks/classification/classification_config.h"

#include <algorithm>
#include <stdexcept>
#include <map>

#include "experiments/harness/model_map.h"
#include "common/json_options.h"
#include "tasks/classification/classification_train_options.h"
#include "common/config_json.h"
#include "tasks/classification/classification_datasets.h"
#include "experiments/search/search_space.h"
#include "models/registry.h"

namespace recurlab::experiments {
namespace {

// Builds the encoder and reads the train keys of one concrete config: the checks of the
// registry factory and ClassificationTrainOptions, run before any work.
void checkConcreteUnit(const nlohmann::json& unit, const std::string& where) {
  const auto train = ClassificationTrainOptions::fromJson(unit.at("train"), where + ".train");
  try {
    models::makeEncoder(unit.at("encoder").get<std::string>(), unit.at("config"),
                        train.classifier.embed_dim);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ".config: " + e.what());
  }
}

// Key own_datasets: name -> {"files": [1 to 3 files], "classes": K}.
std::vector<ClassificationDatasetSpec> readOwnDatasets(const nlohmann::json& own) {
  std::vector<ClassificationDatasetSpec> datasets;
  const std::string expected = "an object of name -> {\"files\": [1 to 3 files], \"classes\": K}";
  if (!own.is_object())
    throw std::invalid_argument("classification config: key 'own_datasets' = " + own.dump() +
                                " is invalid; expected " + expected);
  for (auto it = own.begin(); it != own.end(); ++it) {
    const std::string at = "classification config: own_datasets." + it.key();
    const auto known = classificationDatasetNames();
    if (std::find(known.begin(), known.end(), it.key()) != known.end())
      throw std::invalid_argument(at + ": the name of a known benchmark; choose another");
    JsonOptions d(it.value(), at);
    ClassificationDatasetSpec spec;
    spec.name = it.key();
    spec.num_classes = static_cast<int>(d.getInt("classes", 0, 2, 100000));
    const auto files = d.getJson("files", nlohmann::json());
    d.finish();
    if (spec.num_classes < 2)
      throw std::invalid_argument(at + ": key 'classes' (the label count K >= 2) is missing");
    if (!files.is_array() || files.empty() || files.size() > 3)
      throw std::invalid_argument(at + ": key 'files' = " + files.dump() + " is invalid; expected " +
                                  "[all] (cross-validation), [train, test] or [train, dev, test]");
    for (const auto& f : files) {
      if (!f.is_string()) throw std::invalid_argument(at + ": key 'files' holds " + f.dump() + "; expected paths");
      spec.files.push_back(f.get<std::string>());
    }
    spec.cross_validation = files.size() == 1;
    spec.given_dev = files.size() == 3;
    datasets.push_back(spec);
  }
  return datasets;
}

}  // namespace

ClassificationConfig ClassificationConfig::fromJson(const nlohmann::json& json) {
  ClassificationConfig c;
  JsonOptions j(json, "classification config");
  readRunKeys(j, "classification", c.seed, c.keep_model, {"best", "last", "none"});
  c.cv_folds = j.getInt("cv_folds", c.cv_folds, 2, 100);
  c.folds = j.getInt("folds", c.folds, 1, c.cv_folds);
  c.trials = j.getInt("trials", c.trials, 1, 10000);
  c.seeds = j.getInt("seeds", c.seeds, 1, 1000);
  c.embeddings = j.getString("embeddings", "");

  if (json.contains("own_datasets")) c.own_datasets = readOwnDatasets(json.at("own_datasets"));
  j.getJson("own_datasets", nullptr);  // checked above

  const auto all = classificationDatasetNames();
  if (json.contains("datasets")) {
    const auto& d = json.at("datasets");
    const std::string expected = "a non-empty list of dataset names from: " + joinNames(all);
    if (!d.is_array() || d.empty())
      throw std::invalid_argument("classification config: key 'datasets' = " + d.dump() +
                                  " is invalid; expected " + expected);
    for (const auto& name : d) {
      if (!name.is_string())
        throw std::invalid_argument("classification config: key 'datasets' entry " + name.dump() +
                                    " is invalid; expected " + expected);
      c.datasetSpec(name.get<std::string>());  // throws naming the accepted names
      c.datasets.push_back(name.get<std::string>());
    }
  } else {
    c.datasets = all;
  }
  j.getJson("datasets", nullptr);  // checked above

  {
    JsonOptions d(json.contains("data") ? json.at("data") : nlohmann::json::object(),
                  "classification config: data");
    c.empty_sentences = d.getString("empty_sentences", "skip", {"skip", "error"}) == "error"
                            ? EmptySentencePolicy::Error
                            : EmptySentencePolicy::Skip;
    c.dev_fraction = d.getDouble("dev_fraction", c.dev_fraction, 0.01, 0.5);
    c.split_seed = d.getInt("split_seed", c.split_seed, 0, (1LL << 53) - 1);
    d.finish();
  }
  j.getJson("data", nullptr);
  c.train = readObjectKeys(j, {"train"}).at("train");
  validateSearchSpaces(c.train, "classification config: train");

  ModelMapFormat format;
  format.where = "classification config";
  format.registered = models::encoderNames();
  format.entry_form = "{\"encoder\": <registry name>, \"config\": {...}, \"train\": {...}}";
  std::map<std::string, std::string> pooling;
  const auto entries = readModelMap(j, format, [&](const ModelMapEntry& e, JsonOptions& keys) {
    pooling[e.name] = keys.getString("pooling", "auto", {"auto", "last", "mean", "max"});
  });
  for (const auto& e : entries) {
    ClassificationModelSpec spec;
    spec.name = e.name;
    spec.encoder = e.registry_name;
    spec.pooling = pooling.at(e.name);
    spec.config = e.objects.at("config");
    spec.train = e.objects.at("train");
    validateSearchSpaces(spec.config, e.where + ".config");
    validateSearchSpaces(spec.train, e.where + ".train");
    c.models.push_back(spec);
  }
  j.finish();

  for (const auto& m : c.models) {
    const auto unit = c.unitTemplate(m);
    for (const auto& corner : searchSpaceCorners(unit))
      checkConcreteUnit(corner, "classification config: models." + m.name);
  }
  return c;
}

const ClassificationModelSpec& ClassificationConfig::model(const std::string& name) const {
  return specNamed(models, name, "classification config");
}

nlohmann::json ClassificationConfig::unitTemplate(const ClassificationModelSpec& m) const {
  return {{"encoder", m.encoder}, {"pooling", m.pooling}, {"config", m.config},
          {"train", withOverrides(train, m.train)}};
}

const ClassificationDatasetSpec& ClassificationConfig::datasetSpec(const std::string& name) const {
  for (const auto& s : own_datasets)
    if (s.name == name) return s;
  return classificationDataset(name);
}

}  // namespace recurlab::experiments
