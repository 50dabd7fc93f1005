#pragma once
// Question answering on SQuAD v1.1 (Lei et al. 2018 §4.3, App. B.2; the DrQA reader of Chen
// et al. 2017) as a harness Task: one unit per model, /<model>, trained by the one Trainer and
// selected on dev F1 of the official evaluator. Protocols:
//   official: train on train-v1.1.json, evaluate on all of dev-v1.1.json (published numbers);
//   offline:  without the train file, the dev file's 48 articles are split by a seeded
//             permutation (split_seed): dev_articles of them are the dev set, the rest train.
//             Article-disjoint, fixed, NOT comparable with published numbers.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/harness/task.h"
#include "tasks/qa/qa_config.h"
#include "tasks/qa/qa_examples.h"
#include "tasks/qa/squad_dataset.h"

namespace recurlab::experiments::qa {

// The reader's word vocabulary in a kept model's folder (experiments/data/vocabulary.h).
inline constexpr const char* kQaVocabularyFile = "vocabulary.json";

// The questions of each split (indices into their dataset).
struct QaSplit {
  std::string protocol;  // "official" or "offline"
  std::vector<int64_t> train, dev;
  std::vector<std::string> dev_titles;  // offline: the held-out articles
};

// The offline protocol's split of one dataset: articles permuted with split_seed, the first
// dev_articles held out; then the seeded subsamples (0 = all).
QaSplit offlineSplit(const SquadDataset& dev, const QaDataOptions& options);

class QaTask : public Task {
 public:
  QaTask(QaConfig config, std::string data_dir);
  ~QaTask() override;

  int64_t seed() const override { return config_.seed; }
  std::string describe() const override;
  // Loads the data (errors name the file and say how to get it), picks the protocol, writes
  // nothing. Run before any work.
  void checkData() override;
  // The evaluated dev questions as a SQuAD file (<run_folder>/eval-data.json, written once);
  // predictions of each unit go beside it as predictions-<model>.json.
  void prepare(const std::string& run_folder) override;
  // The root attribute "protocol" (official or offline).
  void describeRun(Hdf5RunLog& log) const override;
  // Each batch's questions are split across the ranks (reader_training.h).
  bool dataParallel() const override { return true; }
  const QaSplit& split() const { return split_; }

  std::vector<Unit> units() const override;
  nlohmann::json unitTemplate(const Unit& unit) const override;
  SelectionMetric selection() const override { return {"best_dev_f1", true}; }
  UnitResult runUnit(const Unit& unit, UnitContext& context) override;

 private:
  const QaModelSpec& model(const Unit& unit) const;
  // What one unit's reader is made of and trains on, as its group records it.
  struct UnitCounts {
    int64_t train_examples = 0, train_unaligned_skipped = 0, dev_questions = 0, vocabulary = 0,
            pretrained_words = 0, tuned_words = 0, parameters = 0, recurrent_parameters = 0;
  };
  void logUnitData(Hdf5RunLog& log, const std::string& g, const QaModelSpec& spec,
                   const UnitCounts& counts) const;

  QaConfig config_;
  std::string data_dir_, run_dir_;
  std::unique_ptr<SquadDataset> train_data_, dev_data_;  // the same file when offline
  std::unique_ptr<QaTokens> train_tokens_, dev_tokens_;
  QaSplit split_;
};

}  // namespace recurlab::experiments::qa
