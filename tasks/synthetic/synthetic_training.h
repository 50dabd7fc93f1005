#pragma once
// What the Trainer needs to train a TokenMixerModel on one synthetic task: shuffled batches of
// the training sequences (a seeded permutation per epoch), cross-entropy at the asked
// positions, train accuracy as a tally, and dev accuracy and exact match after each epoch
// (selection: dev accuracy, higher is better). The test split is scored once, on the best
// epoch's weights, by the task (synthetic_task.cpp): scoring its longer sequences after every
// epoch cost about a fifth of a unit's time and decided nothing.
#include <cstdint>
#include <vector>

#include "experiments/training/training_model.h"
#include "tasks/synthetic/sequence_scores.h"
#include "tasks/synthetic/synthetic_task_spec.h"
#include "tasks/synthetic/token_mixer_model.h"

namespace recurlab::experiments {

class SyntheticTraining : public TrainingModel {
 public:
  SyntheticTraining(TokenMixerModel model, const SyntheticData& data, int64_t batch_size,
                    uint64_t seed, torch::Device device = torch::kCPU);

  torch::nn::Module& module() override { return *model_; }
  int64_t batchesPerEpoch() override;
  std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) override;
  StepOutput forward(const TrainBatch& batch) override;
  std::vector<std::string> tallyNames() const override { return {"acc"}; }
  std::vector<std::string> evaluationNames() const override {
    return {"dev_acc", "dev_exact"};
  }
  std::string exampleUnit() const override { return "sequences"; }
  std::vector<double> evaluate() override;
  std::string selectionName() const override { return "dev_acc"; }

 private:
  TokenMixerModel model_;
  const SyntheticData& data_;
  int64_t batch_size_;
  uint64_t seed_;
  torch::Device device_;
  int64_t order_epoch_ = 0;  // the epoch `order_` belongs to
  torch::Tensor order_;
};

// The model's scores on a split (eval mode, no grad), in batches of `batch_size` sequences.
SequenceScores scoreSplit(TokenMixerModel& model, const SyntheticSplit& split,
                          int64_t batch_size, torch::Device device = torch::kCPU);

}  // namespace recurlab::experiments
