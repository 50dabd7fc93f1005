#pragma once
// A task for the harness runner (experiments/harness/runner.h): what it is made of (units of
// work), each unit's config, how one unit is trained and evaluated, and which metric selects a
// search trial. Everything else (shards, resume, search selection, seeds, status, progress,
// checkpoints) is the runner's and the Trainer's, the same for every task.
//
// Units come in two kinds. With a search, trial units (one per sampled config) run first and
// final units of the same `search` then train the config of the best finished trial; without
// one, final units train the template as written (search spaces sampled once).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "experiments/harness/checkpoint_store.h"
#include "experiments/log/hdf5_run_log.h"

namespace recurlab::experiments {

class DataParallelGroup;

struct Unit {
  enum class Kind { Trial, Final };
  Kind kind = Kind::Final;
  std::string group;         // its group in the log, unique: "/MR/sru2/trials/3"
  std::string label;         // progress lines: "MR sru2 trial 4/20"
  std::string search;        // units of one search share it: "MR/sru2"
  int64_t trial = 0;         // Trial: its index; Final: unused
  std::string seed_purpose;  // the training seed is deriveSeed(root seed, seed_purpose)
};

struct SelectionMetric {
  std::string name;          // a key of UnitResult::metrics, e.g. "best_dev_acc"
  bool higher_is_better = true;
};

struct UnitResult {
  bool diverged = false;
  std::string stop_reason;
  std::map<std::string, double> metrics;       // written as attributes of the unit's group
  std::map<std::string, int64_t> counts;       // likewise (epochs, best_epoch, ...)
  std::map<std::string, std::string> texts;    // likewise
  bool keep_checkpoints = false;  // else the runner deletes them once the status is written
};

// What a unit gets from the runner.
struct UnitContext {
  Hdf5RunLog& log;
  std::string group;          // created; the runner writes config, seed, status
  nlohmann::json config;      // concrete: search spaces sampled
  uint64_t seed = 0;          // the unit's training seed
  CheckpointStore checkpoints;  // this unit's folder of checkpoints
  // One progress line (an epoch's): the runner adds position and ETA. `done` in [0, 1] is
  // the fraction of the unit done.
  std::function<void(const std::string& line, double done)> progress;
  // Data-parallel ranks training this unit together (null = this process alone): for the
  // TrainerContext (experiments/training/trainer.h).
  DataParallelGroup* data_parallel = nullptr;
};

class Task {
 public:
  virtual ~Task() = default;
  // Every unit of the run in a fixed order, all trials first (shard i/n runs index % n == i).
  virtual std::vector<Unit> units() const = 0;
  // The unit's config, possibly holding search spaces (experiments/search/search_space.h).
  virtual nlohmann::json unitTemplate(const Unit& unit) const = 0;
  virtual SelectionMetric selection() const = 0;
  // Trains and evaluates one unit, writing its tables under context.group.
  virtual UnitResult runUnit(const Unit& unit, UnitContext& context) = 0;
};

}  // namespace recurlab::experiments
