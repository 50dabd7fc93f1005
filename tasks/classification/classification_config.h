#pragma once
// The classification experiment's config (configs/classification/*.json), checked in full
// before any work: unknown keys, wrong types, out-of-range values and malformed search spaces
// are errors naming the key. Values inside "train" and each model's "config"/"train" may be
// search spaces (experiments/search/search_space.h). `datasets` may name the user's own labelled
// files declared under `own_datasets`.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tasks/classification/classification_datasets.h"
#include "tasks/classification/labeled_sentences.h"

namespace recurlab::experiments {

struct ClassificationModelSpec {
  std::string name;        // label in the config and the log, e.g. "sru2"
  std::string encoder;     // registry name, e.g. "sru"
  nlohmann::json config;   // the encoder's keys (may hold search spaces)
  nlohmann::json train;    // overrides of the shared "train" keys (may hold search spaces)
  std::string pooling = "auto";  // auto (the encoder's preference), last, mean or max
};

struct ClassificationConfig {
  int64_t seed = 1;
  std::string keep_model = "best";  // best | last | none (experiments/kept_model/)
  std::vector<std::string> datasets;
  std::vector<ClassificationModelSpec> models;
  int64_t cv_folds = 10;   // folds of the cross-validation sets
  int64_t folds = 10;      // how many of them to run (the first `folds`)
  int64_t trials = 20;     // random-search trials; 1 = no search, the config as written
  int64_t seeds = 5;       // final runs per fold with the chosen config
  nlohmann::json train;    // shared training keys (may hold search spaces)
  std::string embeddings;  // word vectors file; "" = trained from random init
  EmptySentencePolicy empty_sentences = EmptySentencePolicy::Skip;
  double dev_fraction = 0.1;
  int64_t split_seed = 1;  // fixes fold membership and dev hold-outs

  // A user's own labelled files (key own_datasets: name -> {"files": [...], "classes": K}):
  // one file is split into cv_folds folds, two are train and test (dev held out), three are
  // train, dev and test; every line `LABEL tokens...`, labels 0..K-1.
  std::vector<ClassificationDatasetSpec> own_datasets;

  static ClassificationConfig fromJson(const nlohmann::json& config);
  // The dataset `name` names: one of own_datasets, else a known benchmark.
  const ClassificationDatasetSpec& datasetSpec(const std::string& name) const;

  const ClassificationModelSpec& model(const std::string& name) const;
  // {"encoder": ..., "pooling": ..., "config": {...}, "train": {...}} with the model's train overrides applied;
  // still holding its search spaces.
  nlohmann::json unitTemplate(const ClassificationModelSpec& model) const;
  bool searches() const { return trials > 1; }
};

}  // namespace recurlab::experiments
