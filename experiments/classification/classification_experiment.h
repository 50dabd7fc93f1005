#pragma once
// The text classification benchmark (seed 000 B.1, design.md §6) as units of work:
//   search trials  /<dataset>/<model>/trials/<t>            (only when trials > 1)
//   final runs     /<dataset>/<model>/folds/<f>/seeds/<s>   (the chosen config, M seeds)
// Trials run on fold 0 and are selected on dev accuracy (the Rational Recurrences protocol,
// seed 002 E.3); every fold then trains the chosen config with `seeds` seeds. A unit's group
// holds an `epochs` table (one row per epoch, flushed) and attributes; it is finished once its
// `status` attribute exists (written last). Units are enumerated in a fixed order, all trials
// first; shard i/n runs the units whose index is i mod n.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/classification/classification_config.h"
#include "experiments/config/experiment_command_line.h"
#include "experiments/data/classification_datasets.h"
#include "experiments/data/word_vectors.h"
#include "experiments/log/hdf5_run_log.h"

namespace recurlab::experiments {

struct ClassificationUnit {
  enum class Kind { Trial, Final };
  Kind kind = Kind::Final;
  std::string dataset, model;
  int64_t trial = 0, fold = 0, seed_index = 0;

  std::string group() const;
  std::string describe() const;  // "MR sru2 trial 3" / "MR sru2 fold 0 seed 1"
};

// Columns of every unit's `epochs` table.
const std::vector<std::string>& classificationEpochColumns();

std::vector<ClassificationUnit> classificationUnits(const ClassificationConfig& config);

struct ClassificationRunHooks {
  // Called after every logged epoch / finished unit; tests throw here to simulate a crash.
  std::function<void(const ClassificationUnit&, int64_t epoch)> after_epoch;
  std::function<void(const ClassificationUnit&)> after_unit;
  std::ostream* progress = nullptr;  // one line per epoch; nullptr = std::cerr
};

struct ClassificationRunReport {
  int64_t ran = 0;              // units trained by this call
  int64_t already_finished = 0; // found in the log and skipped
  int64_t waiting = 0;          // final units whose search is not finished in other shards
  int64_t diverged = 0;
};

class ClassificationExperiment {
 public:
  ClassificationExperiment(ClassificationConfig config, std::string data_dir, Shard shard = {});
  ~ClassificationExperiment();

  const ClassificationConfig& config() const { return config_; }
  const std::vector<ClassificationUnit>& units() const { return units_; }
  std::vector<ClassificationUnit> shardUnits() const;

  // Every dataset file is present (else the error says to run scripts/get-data.sh) and
  // parses; run before any work.
  void checkData();

  // Groups of this shard's units that exist in `log` without a status (cut off mid-way).
  std::vector<std::string> unfinishedGroups(const Hdf5RunLog& log) const;

  // Runs this shard's units that `log` does not hold finished. `folder` is the run folder:
  // other shards' logs there are read for search results.
  ClassificationRunReport run(Hdf5RunLog& log, const std::string& folder,
                              const ClassificationRunHooks& hooks = {});

 private:
  const ClassificationData& data(const std::string& dataset);
  // The concrete config of a unit; for a final unit after a search, the best trial's, or
  // null when some trial is not finished yet (in any log of the folder).
  nlohmann::json unitConfig(const ClassificationUnit& unit, const Hdf5RunLog& log,
                            const std::string& folder, int64_t* chosen_trial);
  uint64_t trainingSeed(const ClassificationUnit& unit) const;
  const WordVectors* wordVectors();  // loaded once; null without --embeddings

  ClassificationConfig config_;
  std::string data_dir_;
  Shard shard_;
  std::vector<ClassificationUnit> units_;
  std::map<std::string, ClassificationData> data_;
  std::unique_ptr<WordVectors> vectors_;
};

}  // namespace recurlab::experiments
