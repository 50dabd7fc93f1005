#include "tasks/synthetic/synthetic_training.h"

#include <stdexcept>
#include <string>

#include "experiments/search/seed_sequence.h"

namespace recurlab::experiments {
namespace {

struct SequenceBatch : TrainBatch {
  torch::Tensor tokens, targets;  // (B, L)

  std::unique_ptr<TrainBatch> part(int i, int n) const override {
    const int64_t b = tokens.size(0), from = b * i / n, to = b * (i + 1) / n;
    auto p = std::make_unique<SequenceBatch>();
    p->tokens = tokens.narrow(0, from, to - from);
    p->targets = targets.narrow(0, from, to - from);
    return p;
  }
  bool empty() const override { return tokens.size(0) == 0; }
};

}  // namespace

SequenceScores scoreSplit(TokenMixerModel& model, const SyntheticSplit& split,
                          int64_t batch_size, torch::Device device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  SequenceScores scores;
  for (int64_t from = 0; from < split.size(); from += batch_size) {
    const int64_t n = std::min(batch_size, split.size() - from);
    const auto targets = split.targets.narrow(0, from, n).to(device);
    const auto logits = model->forwardAsked(split.tokens.narrow(0, from, n).to(device),
                                            targets.ne(kNoTarget));
    scores.append(scorePredictions(spreadAskedPredictions(logits.argmax(1), targets), targets));
  }
  model->train(was_training);
  return scores;
}

SyntheticTraining::SyntheticTraining(TokenMixerModel model, const SyntheticData& data,
                                     int64_t batch_size, uint64_t seed, torch::Device device)
    : model_(std::move(model)), data_(data), batch_size_(batch_size), seed_(seed), device_(device) {
  if (data_.train.size() == 0) throw std::invalid_argument("synthetic training: empty training set");
}

int64_t SyntheticTraining::batchesPerEpoch() {
  return (data_.train.size() + batch_size_ - 1) / batch_size_;
}

std::unique_ptr<TrainBatch> SyntheticTraining::batch(int64_t epoch, int64_t index) {
  if (order_epoch_ != epoch) {
    const auto order = seededPermutation(static_cast<size_t>(data_.train.size()),
                                         deriveSeed(seed_, "epoch/" + std::to_string(epoch)));
    order_ = torch::tensor(std::vector<int64_t>(order.begin(), order.end()), torch::kInt64);
    order_epoch_ = epoch;
  }
  const int64_t from = index * batch_size_;
  const auto rows = order_.narrow(0, from, std::min(batch_size_, data_.train.size() - from));
  auto b = std::make_unique<SequenceBatch>();
  b->tokens = data_.train.tokens.index_select(0, rows).to(device_);
  b->targets = data_.train.targets.index_select(0, rows).to(device_);
  return b;
}

StepOutput SyntheticTraining::forward(const TrainBatch& batch) {
  const auto& b = static_cast<const SequenceBatch&>(batch);
  const auto asked = b.targets.ne(kNoTarget);
  const auto logits = model_->forwardAsked(b.tokens, asked);
  const auto asked_targets = b.targets.index({asked});
  StepOutput out;
  out.loss = torch::nn::functional::cross_entropy(logits, asked_targets);
  out.examples = b.tokens.size(0);
  torch::NoGradGuard no_grad;
  const auto right =
      spreadAskedPredictions(logits.argmax(1), b.targets).eq(b.targets).sum(1).to(torch::kDouble);
  // Summed per-sequence accuracy: / sequences gives train_acc.
  out.tally_values = (right / asked.sum(1).clamp_min(1).to(torch::kDouble)).sum().reshape({1});
  return out;
}

std::vector<double> SyntheticTraining::evaluate() {
  const auto dev = scoreSplit(model_, data_.dev, batch_size_, device_);
  return {dev.accuracy(), dev.exactMatch()};
}

}  // namespace recurlab::experiments
