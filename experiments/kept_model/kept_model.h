#pragma once
// A kept model: what a unit leaves in <run>/models/<unit path>/ so that it can be used after
// the run (translate, score, generate, predict, classify):
//   weights.pt     a LibTorch archive with one tensor per name of the module's
//                  named_parameters() and named_buffers() (floating point as float32, on CPU)
//   config.json    what rebuilds the model (task, model name, its config, vocabulary sizes)
//   <vocabulary>   the task's own files: subword model, vocabularies
//   manifest.json  what these weights are (best, last or averaged), the metric and value they
//                  reached, the epoch, the sha256 of every other file, the recurlab commit
// The folder is written beside its place under a per-process name and renamed into place, the
// manifest last, so a kill never leaves a half model that loads; openKeptModel checks the
// manifest and every checksum and names what is wrong.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiments/training/checkpoint_store.h"

namespace torch::nn {
class Module;
}  // namespace torch::nn

namespace recurlab::experiments {

class Hdf5RunLog;

// Which weights a unit keeps (config key keep_model).
enum class KeepModel { Best, Last, Averaged, None };
KeepModel keepModelNamed(const std::string& name);  // "best", "last", "averaged", "none"
std::string keepModelName(KeepModel keep);

struct KeptModelFile {
  std::string name;                                  // a plain file name in the folder
  std::function<void(const std::string& path)> write;  // writes the whole file at `path`
};

struct KeptModelSpec {
  std::string task;        // "mt", "lm", "qa", "classification"
  std::string model;       // the unit's model name in its config
  std::string unit;        // the unit's group in the run log
  KeepModel weights = KeepModel::Best;
  std::string metric;      // the metric these weights reached, e.g. "test_bleu"
  double value = 0;
  int64_t epoch = 0;
  nlohmann::json config;   // config.json
  const torch::nn::Module* module = nullptr;  // its named parameters and buffers: weights.pt
  std::vector<KeptModelFile> files;           // the task's own files (vocabularies)
};

// What kept weights reached, as their manifest records it.
struct KeptScore {
  std::string metric;
  double value = 0;
  int64_t epoch = 0;
};

// Fills spec.metric, value and epoch: `last()` for Last weights (called only then: it reads the
// unit's final epoch from the log), `best` (the unit's best epoch) otherwise.
void setKeptScore(KeptModelSpec& spec, const KeptScore& best,
                  const std::function<KeptScore()>& last);

// A TrainedModel's `last` where the epochs table of the unit's group `group` logs the metric:
// its column `metric` at the last row, reached at epoch `epochs`. Reads the log when called.
std::function<KeptScore()> lastEpochScore(Hdf5RunLog& log, const std::string& group,
                                          const std::string& metric, int64_t epochs);

// Writes the folder `dir` (replacing one there) atomically.
void writeKeptModel(const std::string& dir, const KeptModelSpec& spec);

// What a task hands the runner after a final unit (UnitResult::kept_model): the trained module
// and what rebuilds it. The runner keeps it (keepTrainedModel); the task writes no folder.
struct TrainedModel {
  std::string task;        // "mt", "lm", "qa", "classification"
  std::string model;       // the unit's model name in its config
  KeepModel weights = KeepModel::None;  // config key keep_model (None: nothing is kept)
  KeptScore best;          // what the weights of Best (and Averaged) reached
  std::function<KeptScore()> last;  // what the last epoch's reached: called for Last only
  nlohmann::json config;   // config.json
  std::shared_ptr<torch::nn::Module> module;  // the trained model, as training left it
  // The Trainer's module, whose checkpoints hold the Best and Last weights, where it is not
  // `module` itself but holds it (LM: the model and the carried BPTT state); null: `module`.
  std::shared_ptr<torch::nn::Module> checkpointed;
  std::vector<KeptModelFile> files;           // the task's own files (vocabularies)
};

// Puts the weights `model.weights` names into the module (selectKeptWeights, through
// `model.checkpointed` where there is one), scores them and
// writes the folder `dir` for the unit `unit` (its group in the run log). Nothing for None.
void keepTrainedModel(const TrainedModel& model, const std::string& dir, const std::string& unit,
                      const CheckpointStore& checkpoints);

struct KeptModel {
  std::string dir;
  nlohmann::json manifest, config;
  std::string path(const std::string& file) const;  // dir/file
};

// Opens a kept model of `task`: the manifest is there and names this task, every file it
// lists is there with its checksum, config.json parses, and `required` files are listed.
// Throws std::runtime_error naming the file and what is wrong.
KeptModel openKeptModel(const std::string& dir, const std::string& task,
                        const std::vector<std::string>& required = {});

// Loads weights.pt into `module`: every parameter and buffer by name, shapes equal, and no
// name left over on either side (an error names the file and the first name that differs).
void loadKeptWeights(torch::nn::Module& module, const KeptModel& model);

// Writes `module`'s named parameters and buffers to `path` (the weights.pt format).
void saveNamedTensors(const torch::nn::Module& module, const std::string& path);

// Loads the model part of a Trainer checkpoint file into `module` (the Trainer's module).
void loadCheckpointModel(torch::nn::Module& module, const std::string& checkpoint_file);

// After training, puts the weights `keep` names into `trained` (the Trainer's module): Best and
// Last load the unit's `best` or `last` checkpoint; Averaged keeps those in memory (MT's
// averaged model). A missing checkpoint is an error naming it.
void selectKeptWeights(KeepModel keep, const CheckpointStore& checkpoints, torch::nn::Module& trained);

}  // namespace recurlab::experiments
