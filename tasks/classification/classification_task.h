#pragma once
// The text classification benchmark (Lei et al. 2018 §4.1 and App. B.1) as a
// harness Task: only its data, folds, embeddings, head and accuracy live here; the runner
// (experiments/harness/runner.h) and the Trainer do the rest. Units:
//   search trials  /<dataset>/<model>/trials/<t>            (only when trials > 1)
//   final runs     /<dataset>/<model>/folds/<f>/seeds/<s>   (the chosen config, M seeds)
// Trials run on fold 0 and are selected on dev accuracy (the protocol of Peng et al. 2018,
// App. E.3); every fold then trains the chosen config with `seeds` seeds.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tasks/classification/classification_config.h"
#include "tasks/classification/classification_datasets.h"
#include "experiments/data/word_vectors.h"
#include "experiments/harness/task.h"

namespace recurlab::experiments {

// Where a unit sits in the benchmark.
struct ClassificationUnitPlace {
  std::string dataset, model;
  int64_t trial = 0, fold = 0, seed_index = 0;
};

class ClassificationTask : public Task {
 public:
  ClassificationTask(ClassificationConfig config, std::string data_dir);
  ~ClassificationTask() override;

  const ClassificationConfig& config() const { return config_; }
  int64_t seed() const override { return config_.seed; }
  std::string describe() const override;
  bool dataParallel() const override { return true; }

  // Every dataset file is present (else the error says to run scripts/get-data.sh) and
  // parses; run before any work.
  void checkData() override;

  std::vector<Unit> units() const override { return units_; }
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"best_dev_acc", true}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

  const ClassificationUnitPlace& place(const Unit& unit) const;

 private:
  const ClassificationData& data(const std::string& dataset);
  const WordVectors* wordVectors();  // loaded once; null without embeddings

  ClassificationConfig config_;
  std::string data_dir_;
  std::vector<Unit> units_;
  std::map<std::string, ClassificationUnitPlace> places_;  // by group
  std::map<std::string, ClassificationData> data_;
  std::unique_ptr<WordVectors> vectors_;
};

}  // namespace recurlab::experiments
