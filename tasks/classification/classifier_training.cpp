#include "tasks/classification/classifier_training.h"

#include <torch/torch.h>

#include <numeric>
#include <stdexcept>

#include "experiments/search/seed_sequence.h"
#include "experiments/training/trainer.h"

namespace recurlab::experiments {
namespace {

struct ClassifierBatch : TrainBatch {
  const SentenceBatch* batch = nullptr;
  SentenceBatch owned;  // a part's own slice (batch points at it)

  // Sentences i*B/n .. (i+1)*B/n of the batch (columns), for data-parallel ranks.
  std::unique_ptr<TrainBatch> part(int i, int n) const override {
    const int64_t b = batch->labels.size(0), from = b * i / n, to = b * (i + 1) / n;
    auto p = std::make_unique<ClassifierBatch>();
    p->owned = {batch->tokens.narrow(1, from, to - from), batch->mask_pad.narrow(1, from, to - from),
                batch->lengths.narrow(0, from, to - from), batch->labels.narrow(0, from, to - from)};
    p->batch = &p->owned;
    return p;
  }
};

// Evaluation order: sorted by length so batches carry little padding.
std::vector<size_t> byLength(const std::vector<EncodedSentence>& s) {
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return s[a].ids.size() < s[b].ids.size(); });
  return order;
}

}  // namespace

double classifierAccuracy(models::TextClassifier& model,
                          const std::vector<EncodedSentence>& sentences, int64_t batch_size,
                          torch::Device device) {
  if (sentences.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device));
  for (const auto& b : makeSentenceBatches(sentences, byLength(sentences), batch_size)) {
    auto logits = model->forward(b.tokens.to(device), b.mask_pad.to(device), b.lengths.to(device));
    correct += logits.argmax(1).eq(b.labels.to(device)).sum();
  }
  model->train(was_training);
  return static_cast<double>(correct.item<int64_t>()) / static_cast<double>(sentences.size());
}

ClassifierTraining::ClassifierTraining(models::TextClassifier model, const EncodedSplits& data,
                                       int64_t batch_size, uint64_t seed, torch::Device device)
    : model_(std::move(model)), data_(data), batch_size_(batch_size), seed_(seed),
      device_(device) {
  if (data_.train.empty()) throw std::invalid_argument("classifier training: empty training set");
}

std::vector<torch::Tensor> ClassifierTraining::sparseParameters() {
  if (!model_->options().sparse_gradients) return {};
  return {model_->embeddingWeight()};
}

int64_t ClassifierTraining::batchesPerEpoch() {
  const auto n = static_cast<int64_t>(data_.train.size());
  return (n + batch_size_ - 1) / batch_size_;
}

std::unique_ptr<TrainBatch> ClassifierTraining::batch(int64_t epoch, int64_t index) {
  if (batches_epoch_ != epoch) {
    const auto order = seededPermutation(data_.train.size(),
                                         deriveSeed(seed_, "epoch/" + std::to_string(epoch)));
    batches_ = makeSentenceBatches(data_.train, order, batch_size_);
    batches_epoch_ = epoch;
  }
  auto b = std::make_unique<ClassifierBatch>();
  b->batch = &batches_.at(static_cast<size_t>(index));
  return b;
}

StepOutput ClassifierTraining::forward(const TrainBatch& batch) {
  const auto& b = *static_cast<const ClassifierBatch&>(batch).batch;
  const auto labels = b.labels.to(device_);
  auto logits = model_->forward(b.tokens.to(device_), b.mask_pad.to(device_), b.lengths.to(device_));
  StepOutput out;
  out.loss = torch::nn::functional::cross_entropy(logits, labels);
  out.examples = b.labels.size(0);
  // Left on the device: the Trainer reads it with the loss, not at every step on CUDA.
  out.tally_values = logits.detach().argmax(1).eq(labels).sum().to(torch::kDouble).reshape({1});
  return out;
}

std::vector<double> ClassifierTraining::evaluate() {
  return {classifierAccuracy(model_, data_.dev, 128, device_),
          classifierAccuracy(model_, data_.test, 128, device_)};
}

}  // namespace recurlab::experiments
