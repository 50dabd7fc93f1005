#pragma once
// Where training stands: everything a checkpoint holds besides tensors (model, optimizer, RNG,
// the tables so far). Written as named fields (checkpoint_fields.h), so a resumed run finds
// every value by its name.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/training/checkpoint_fields.h"
#include "experiments/training/meter.h"
#include "experiments/training/plateau_tracker.h"
#include "experiments/training/trainer.h"

namespace recurlab::experiments {

enum class Finished : int64_t { No = 0, MaxEpochs = 1, EarlyStopping = 2 };

// The epoch in progress, measured; reset when an epoch ends. Named as the epochs table's
// columns.
struct EpochMeters {
  explicit EpochMeters(size_t tallies = 0);
  void reset();

  Meter train_loss = Meter::average();          // batch loss x examples, over examples
  std::vector<Meter> tallies;                   // train_<tally>: summed tallies, over examples
  Meter examples_per_second = Meter::rate();    // training examples per training second
  Meter data_seconds = Meter::time(), forward_seconds = Meter::time(),
        backward_seconds = Meter::time(), step_seconds = Meter::time(),
        eval_seconds = Meter::time();
};

struct TrainingState {
  // `tally_names` as TrainingModel::tallyNames(); `best_names` the metrics kept at the best
  // epoch (evaluation names, then train_<tally>), all 0 until an epoch improves.
  TrainingState(std::vector<std::string> tally_names, const std::vector<std::string>& best_names);

  int64_t epoch = 1;  // the epoch in progress (1-based)
  int64_t batch = 0;  // its next batch
  int64_t step = 0;   // optimizer steps so far
  Finished finished = Finished::No;
  double lr = 0;
  PlateauTracker::State plateau;
  EpochMeters meters;
  Meter window_loss = Meter::average();  // the steps table's current window: loss per batch
  TrainOutcome outcome;                  // the epochs done so far
  std::vector<std::vector<double>> epoch_rows, step_rows;  // the tables so far

  // Everything but the tables, by name.
  CheckpointFields fields() const;
  // Takes every field back by name; a missing one is an error naming it and the file.
  void restore(const CheckpointFields& fields);

 private:
  std::vector<std::string> tally_names_;
};

}  // namespace recurlab::experiments
