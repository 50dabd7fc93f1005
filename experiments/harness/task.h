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
#include <optional>
#include <string>
#include <vector>

#include "common/log/hdf5_run_log.h"
#include "experiments/kept_model/kept_model.h"
#include "experiments/training/checkpoint_store.h"
#include "experiments/training/execution_options.h"

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
  // A final unit's trained model: the runner keeps it in UnitContext::model_dir (when there is
  // one and the unit did not diverge), before the status.
  std::optional<TrainedModel> kept_model;
};

// What a unit gets from the runner.
struct UnitContext {
  Hdf5RunLog& log;
  std::string group;          // created; the runner writes config, seed, status
  nlohmann::json config;      // concrete: search spaces sampled
  uint64_t seed = 0;          // the unit's training seed
  CheckpointStore checkpoints;  // this unit's folder of checkpoints
  // Where the unit keeps its trained model, <run>/models/<unit path> (experiments/kept_model/
  // kept_model.h); "" = none (trial units, runs without checkpoints).
  std::string model_dir;
  // One progress line (an epoch's): the runner adds position and ETA. `done` in [0, 1] is
  // the fraction of the unit done.
  std::function<void(const std::string& line, double done)> progress;
  // Data-parallel ranks training this unit together (null = this process alone): for the
  // TrainerContext (experiments/training/trainer.h).
  DataParallelGroup* data_parallel = nullptr;
  // Where and how the unit computes (--device, --precision, --deterministic): the task puts
  // its model and batches on execution.device; the Trainer applies the precision.
  ExecutionOptions execution = {};
};

// The life of a run, as the one driver (experiments/harness/experiment_driver.h) runs it:
//   config checked (the task's constructor: every key of every unit, before any work)
//   -> checkData() -> prepare(run folder) once, before any worker starts
//   -> the runner over units() (each unit: unitTemplate -> runUnit)
//   -> the report and its terminal summary (recurlab_analyze, from the log alone).
class Task {
 public:
  virtual ~Task() = default;
  // The run's root seed (config key "seed"): every unit's seeds derive from it.
  virtual int64_t seed() const = 0;
  // What the run holds, for the first terminal line ("3 models, 5,000 training pairs").
  virtual std::string describe() const { return ""; }
  // Every input file is there and readable; throws naming the file and how to fetch it.
  virtual void checkData() {}
  // Run-wide preparation shared by every unit (subword model, evaluation files) in the run
  // folder. Called in the process that starts the workers before they start, then in every
  // worker, which finds the files and loads them: each file appears atomically (written
  // beside, then renamed), so a kill never leaves half of one.
  virtual void prepare(const std::string& run_folder) { (void)run_folder; }
  // Root attributes of a worker's log, written after prepare (e.g. the QA protocol).
  virtual void describeRun(Hdf5RunLog& log) const { (void)log; }
  // Whether one unit can train on several data-parallel ranks (--nproc-per-node).
  virtual bool dataParallel() const { return false; }
  // The config the run folder records and compares on resume, for a task that builds it from
  // options and defaults (speed, variance); nullopt = the command line's config as given.
  virtual std::optional<nlohmann::json> runConfig() const { return std::nullopt; }
  // The device the run log records ("cpu", "cuda:0").
  virtual std::string device() const { return "cpu"; }
  // Every unit of the run in a fixed order, all trials first (shard i/n runs index % n == i).
  virtual std::vector<Unit> units() const = 0;
  // The unit's config, possibly holding search spaces (experiments/search/search_space.h).
  virtual nlohmann::json unitTemplate(const Unit& unit) const = 0;
  virtual SelectionMetric selection() const = 0;
  // Trains and evaluates one unit, writing its tables under context.group.
  virtual UnitResult runUnit(const Unit& unit, UnitContext& context) = 0;
};

}  // namespace recurlab::experiments
