#pragma once
// What a task hands the one Trainer (trainer.h): a TrainingModel, its batches (TrainBatch) and
// what one training step returns (StepOutput). Nothing of the loop itself.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct TrainBatch {
  virtual ~TrainBatch() = default;
  // Part `index` of `count` of this batch (a slice along the batch, as equal as possible), for
  // data-parallel ranks (experiments/training/data_parallel.h). A batch that cannot be split
  // keeps this default, which refuses with an error.
  virtual std::unique_ptr<TrainBatch> part(int index, int count) const;
  // A part with no examples (a batch smaller than the ranks): the rank skips its forward and
  // backward, and contributes zero gradients with weight zero.
  virtual bool empty() const { return false; }
};

struct StepOutput {
  torch::Tensor loss;     // mean over the batch, with its graph
  int64_t examples = 0;
  std::vector<double> tallies;  // summed over the epoch, / examples -> train_<tallyNames()[i]>
  // The same as a 1-D tensor left on the model's device (no host read in forward): the Trainer
  // reads it with the loss, at most every few steps on CUDA. Used instead of `tallies` when set.
  torch::Tensor tally_values = {};
};

class TrainingModel {
 public:
  virtual ~TrainingModel() = default;
  virtual torch::nn::Module& module() = 0;
  // Parameters whose gradients are sparse (an embedding with sparse gradients).
  virtual std::vector<torch::Tensor> sparseParameters() { return {}; }
  virtual int64_t batchesPerEpoch() = 0;
  // Batch `index` (0-based) of `epoch` (1-based): a function of (epoch, index) only, so a
  // resumed run sees the same data.
  virtual std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) = 0;
  virtual StepOutput forward(const TrainBatch& batch) = 0;  // in training mode
  virtual std::vector<std::string> tallyNames() const { return {}; }
  // What StepOutput::examples counts, plural ("target tokens", "sentences", "characters"): the
  // progress line's rate says it per second.
  virtual std::string exampleUnit() const { return "examples"; }
  // Held-out metrics after an epoch, in a fixed order (columns of the epochs table).
  virtual std::vector<std::string> evaluationNames() const = 0;
  virtual std::vector<double> evaluate() = 0;
  // The evaluation metric that selects the best epoch and drives early stopping.
  virtual std::string selectionName() const = 0;
  virtual bool higherIsBetter() const { return true; }
  // Buffers of module() that are each data-parallel rank's own (state carried over its own
  // part of the batch): not replaced by rank 0's when the ranks start or resume.
  virtual std::vector<torch::Tensor> rankLocalBuffers() { return {}; }
};

}  // namespace recurlab::experiments
