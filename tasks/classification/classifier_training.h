#pragma once
// What the Trainer needs to train a TextClassifier: shuffled mini-batches of encoded
// sentences (a seeded permutation per epoch), cross-entropy, train accuracy as a tally, and
// dev/test accuracy after each epoch (selection: dev accuracy, higher is better).
#include <cstdint>
#include <vector>

#include "tasks/classification/sentence_batches.h"
#include "experiments/training/training_model.h"
#include "models/heads/text_classifier.h"

namespace recurlab::experiments {

struct EncodedSplits {
  std::vector<EncodedSentence> train, dev, test;
};

class ClassifierTraining : public TrainingModel {
 public:
  // Batches go to `device` (where the Trainer puts the model) as they are used.
  ClassifierTraining(models::TextClassifier model, const EncodedSplits& data, int64_t batch_size,
                     uint64_t seed, torch::Device device = torch::kCPU);

  torch::nn::Module& module() override { return *model_; }
  std::vector<torch::Tensor> sparseParameters() override;
  int64_t batchesPerEpoch() override;
  std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) override;
  StepOutput forward(const TrainBatch& batch) override;
  std::vector<std::string> tallyNames() const override { return {"acc"}; }
  std::vector<std::string> evaluationNames() const override { return {"dev_acc", "test_acc"}; }
  std::string exampleUnit() const override { return "sentences"; }
  std::vector<double> evaluate() override;
  std::string selectionName() const override { return "dev_acc"; }

 private:
  models::TextClassifier model_;
  const EncodedSplits& data_;
  int64_t batch_size_;
  uint64_t seed_;
  torch::Device device_;
  int64_t batches_epoch_ = 0;  // the epoch `batches_` belong to
  std::vector<SentenceBatch> batches_;
};

// Accuracy of `model` (in eval mode, no grad, on `device`) on sentences, batched by length.
double classifierAccuracy(models::TextClassifier& model,
                          const std::vector<EncodedSentence>& sentences, int64_t batch_size = 128,
                          torch::Device device = torch::kCPU);

}  // namespace recurlab::experiments
