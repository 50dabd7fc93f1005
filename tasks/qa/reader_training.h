#pragma once
// What the Trainer needs to train the document reader: batches of questions of similar
// paragraph length (sorted by length within a seeded shuffle, batch order shuffled per epoch),
// the loss NLL(start) + NLL(end) of the target span, and after each epoch the dev EM and F1 of
// the official v1.1 evaluator on the predicted spans (selection: dev F1), plus the seconds the
// epoch's training spent in the recurrent encoders ("rnn_seconds", the SRU README's "time used
// in RNN"), also as process CPU seconds ("rnn_cpu_seconds"), and the CPU seconds of the whole
// training part of the epoch ("train_cpu_seconds": from its first batch to its evaluation).
// The predictions of the best epoch so far are written in the official format.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tasks/qa/document_reader.h"
#include "tasks/qa/qa_examples.h"
#include "experiments/training/meter.h"
#include "experiments/training/training_model.h"

namespace recurlab::experiments::qa {

struct ReaderBatch : TrainBatch {
  at::Tensor paragraph, paragraph_pad, features, question, question_pad, start, end;
  std::vector<const QaExample*> examples;
  // Questions i*B/n .. (i+1)*B/n (rows, padded to the whole batch's lengths) for
  // data-parallel rank i of n.
  std::unique_ptr<TrainBatch> part(int i, int n) const override;
  bool empty() const override { return examples.empty(); }
};

// Pads examples into tensors (pads: id 0, mask true).
ReaderBatch makeReaderBatch(const std::vector<const QaExample*>& examples);

// Predicted answer texts {question id: text} of `examples`, spans of at most max_span tokens.
std::map<std::string, std::string> predictAnswers(DocumentReader& model,
                                                  const std::vector<QaExample>& examples,
                                                  const SquadDataset& data, const QaTokens& tokens,
                                                  int64_t max_span, int64_t batch_size = 64);

class ReaderTraining : public TrainingModel {
 public:
  ReaderTraining(DocumentReader model, const std::vector<QaExample>& train,
                 const std::vector<QaExample>& dev, const SquadDataset& data,
                 const QaTokens& tokens, int64_t batch_size, int64_t max_span, uint64_t seed,
                 std::string predictions_path, torch::Device device = torch::kCPU);

  torch::nn::Module& module() override { return *model_; }
  int64_t batchesPerEpoch() override;
  std::unique_ptr<TrainBatch> batch(int64_t epoch, int64_t index) override;
  StepOutput forward(const TrainBatch& batch) override;
  std::string exampleUnit() const override { return "questions"; }
  std::vector<std::string> evaluationNames() const override {
    return {"dev_em", "dev_f1", "rnn_seconds", "rnn_cpu_seconds", "train_cpu_seconds"};
  }
  std::vector<double> evaluate() override;
  std::string selectionName() const override { return "dev_f1"; }

 private:
  DocumentReader model_;
  const std::vector<QaExample>& train_;
  const std::vector<QaExample>& dev_;
  const SquadDataset& data_;
  const QaTokens& tokens_;
  int64_t batch_size_, max_span_;
  uint64_t seed_;
  std::string predictions_path_;
  torch::Device device_;  // the model's (the Trainer puts it there); batches follow
  double best_f1_ = -1;
  std::shared_ptr<RecurrentTimer> timer_;
  int64_t batches_epoch_ = 0;
  // This epoch's: the recurrent encoders' union of intervals (wall, CPU) and the CPU time of its
  // training part, timed from its first batch to its evaluation.
  Meter rnn_seconds_ = Meter::time(), rnn_cpu_seconds_ = Meter::time(),
        train_cpu_seconds_ = Meter::time(Meter::Clock::ProcessCpu);
  std::optional<Meter::Timing> train_cpu_timing_;
  std::vector<std::vector<size_t>> batches_;
};

}  // namespace recurlab::experiments::qa
