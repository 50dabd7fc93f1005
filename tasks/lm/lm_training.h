#pragma once
// What the Trainer needs to train a LanguageModel by truncated BPTT: batch (epoch, index) is
// segment `index` of the training streams; the state is zero at the start of every epoch and
// carried (detached) from segment to segment.
//
// Resume: the carried state and its position (epoch, next segment) live as buffers of the
// trained module, so every checkpoint, an epoch's end or a step inside an epoch, holds them
// and a run killed mid-epoch resumes with the state it had, bit for bit on CPU. A segment
// reached any other way (no state for this position) starts from zero, like an epoch start.
//
// Data-parallel ranks split each segment's streams (rank r of n takes streams r*B/n ..
// (r+1)*B/n) and carry their own streams' state; rank 0 evaluates.
//
// Evaluation: the whole valid text in `eval_batch` streams with the state carried; the test
// text is evaluated whenever valid improves, so `test_nats_at_best` is the test loss at the
// best valid epoch so far (also kept as buffers, for resume). Losses are mean nats per
// predicted symbol (BPC = nats / ln 2, perplexity = e^nats).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tasks/lm/bptt_streams.h"
#include "tasks/lm/language_model.h"
#include "experiments/training/training_model.h"

namespace recurlab::experiments {

// Mean nats per predicted symbol of `streams` under `model` (eval mode, no grad, state
// carried across segments, zero at the start), the segments put on `device` (the model's).
double meanNats(LanguageModel& model, const BpttStreams& streams,
                torch::Device device = torch::kCPU);

class LmTrainingModuleImpl : public torch::nn::Module {
 public:
  explicit LmTrainingModuleImpl(LanguageModel lm);
  LanguageModel lm;
  // The carried state for segment `index` of `epoch`: the stored one when it was stored for
  // exactly this position, else empty (zeros).
  models::SequenceState carried(int64_t epoch, int64_t index) const;
  void carry(const models::SequenceState& state, int64_t epoch, int64_t next_index);
  // The buffers of the carried state and its position.
  std::vector<torch::Tensor> carriedBuffers() const;
  torch::Tensor best;  // [best valid nats, test nats at it]

 private:
  models::SequenceState shape_;        // the encoder's state structure (tensors replaced)
  std::vector<torch::Tensor> state_;   // its tensors, flattened, as buffers
  torch::Tensor position_;             // [epoch, next index]; [0, -1] = nothing stored
  // position_ as last read or written here: a step compares it on the host, never reading the
  // buffer back from a GPU (read once after a checkpoint loads it).
  mutable std::optional<std::array<int64_t, 2>> host_position_;
};
TORCH_MODULE(LmTrainingModule);

class LmTraining : public TrainingModel {
 public:
  // Segments go to `device` (where the Trainer puts the model) as they are used.
  LmTraining(LanguageModel lm, const BpttStreams& train, const BpttStreams& valid,
             const BpttStreams& test, torch::Device device = torch::kCPU);

  torch::nn::Module& module() override { return *module_; }
  // The same module, shared: what the unit's checkpoints hold (the model as submodule "lm").
  std::shared_ptr<torch::nn::Module> sharedModule() const { return module_.ptr(); }
  int64_t batchesPerEpoch() override { return train_.segments(); }
  std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) override;
  StepOutput forward(const TrainBatch& batch) override;
  std::vector<std::string> tallyNames() const override { return {"nats"}; }
  // The corpus's symbols, plural ("characters", "words"); "symbols" until set.
  void setSymbolName(std::string plural) { symbol_name_ = std::move(plural); }
  std::string exampleUnit() const override { return symbol_name_; }
  std::vector<std::string> evaluationNames() const override {
    return {"valid_nats", "test_nats_at_best"};
  }
  std::vector<double> evaluate() override;
  std::string selectionName() const override { return "valid_nats"; }
  bool higherIsBetter() const override { return false; }
  // Data-parallel: each rank carries the state of its own streams (TrainBatch::part).
  std::vector<torch::Tensor> rankLocalBuffers() override { return module_->carriedBuffers(); }

  LanguageModel& lm() { return module_->lm; }

 private:
  LmTrainingModule module_;
  const BpttStreams &train_, &valid_, &test_;
  std::string symbol_name_ = "symbols";
  torch::Device device_;
};

}  // namespace recurlab::experiments
