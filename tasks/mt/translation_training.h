#pragma once
// What the Trainer needs to train a Seq2SeqModel: token-count batches (fixed once, visited in
// a seeded order per epoch), label-smoothed cross-entropy per target token, the train NLL as a
// tally, and after each epoch the valid loss and perplexity, greedy valid BLEU (the quick dev
// curve), test BLEU (beam search, or greedy, by config) and decoding speed.
#include <memory>
#include <string>
#include <vector>

#include "tasks/mt/corpus_translation.h"
#include "tasks/mt/token_batches.h"
#include "experiments/training/training_model.h"

namespace recurlab::models {
class Seq2SeqModel;
}

namespace recurlab::experiments {

class SubwordModel;

// The encoded data of a run, shared by its units.
struct TranslationData {
  std::vector<EncodedPair> train, valid, test;
  std::vector<std::string> valid_references, test_references;  // raw target text
  std::vector<std::string> test_sources;
  SpecialIds ids;
};

struct TranslationTrainingOptions {
  int64_t max_tokens = 4096;
  double label_smoothing = 0.1;
  TranslationOptions test;          // test decoding after each epoch
  std::string test_every_epoch = "beam";  // beam, greedy or none
};

class TranslationTraining : public TrainingModel {
 public:
  TranslationTraining(std::shared_ptr<models::Seq2SeqModel> model, const TranslationData& data,
                      const SubwordModel& subwords, const TranslationTrainingOptions& options,
                      uint64_t seed, torch::Device device = torch::kCPU);

  torch::nn::Module& module() override;
  int64_t batchesPerEpoch() override { return static_cast<int64_t>(batches_.size()); }
  std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) override;
  StepOutput forward(const TrainBatch& batch) override;
  std::vector<std::string> tallyNames() const override { return {"nll"}; }
  std::vector<std::string> evaluationNames() const override;
  std::string exampleUnit() const override { return "target tokens"; }
  std::vector<double> evaluate() override;
  std::string selectionName() const override { return "valid_bleu"; }

  // Mean NLL (nats per target token) of `pairs` under the model, in eval mode.
  double meanNll(const std::vector<EncodedPair>& pairs);
  // Detokenized text of hypotheses.
  std::vector<std::string> detokenize(const std::vector<std::vector<int64_t>>& hypotheses) const;

 private:
  std::shared_ptr<models::Seq2SeqModel> model_;
  const TranslationData& data_;
  const SubwordModel& subwords_;
  TranslationTrainingOptions options_;
  uint64_t seed_;
  torch::Device device_;  // the model's (the Trainer puts it there); batches follow
  std::vector<std::vector<int64_t>> batches_;
  int64_t order_epoch_ = 0;
  std::vector<int64_t> order_;
};

}  // namespace recurlab::experiments
