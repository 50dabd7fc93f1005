#include "experiments/training/classifier_trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "experiments/search/seed_sequence.h"
#include "experiments/training/plateau_tracker.h"

namespace recurlab::experiments {
namespace {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const std::vector<torch::Tensor>& params,
                                                       const TrainOptions& o) {
  if (o.optimizer == "sgd")
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
  return std::make_unique<torch::optim::Adam>(
      params, torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay));
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

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
                          const std::vector<EncodedSentence>& sentences, int64_t batch_size) {
  if (sentences.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  int64_t correct = 0;
  for (const auto& b : makeSentenceBatches(sentences, byLength(sentences), batch_size)) {
    auto logits = model->forward(b.tokens, b.mask_pad, b.lengths);
    correct += logits.argmax(1).eq(b.labels).sum().item<int64_t>();
  }
  model->train(was_training);
  return static_cast<double>(correct) / static_cast<double>(sentences.size());
}

TrainOutcome trainClassifier(models::TextClassifier& model, const EncodedSplits& data,
                             const TrainOptions& options, uint64_t seed,
                             const TrainHooks& hooks) {
  if (data.train.empty()) throw std::invalid_argument("trainClassifier: empty training set");
  torch::manual_seed(seed);
  std::vector<torch::Tensor> params;
  for (auto& p : model->parameters())
    if (p.requires_grad()) params.push_back(p);
  auto optimizer = makeOptimizer(params, options);
  PlateauTracker plateau(options.patience, options.lr_patience);
  TrainOutcome outcome;
  outcome.stop_reason = "max_epochs";
  double lr = options.lr;
  using Clock = std::chrono::steady_clock;

  for (int64_t epoch = 1; epoch <= options.max_epochs; ++epoch) {
    model->train();
    const auto start = Clock::now();
    auto order = seededPermutation(data.train.size(), deriveSeed(seed, "epoch/" + std::to_string(epoch)));
    double loss_sum = 0;
    int64_t correct = 0, seen = 0, batch_index = 0;
    for (const auto& b : makeSentenceBatches(data.train, order, options.batch_size)) {
      ++batch_index;
      optimizer->zero_grad();
      auto logits = model->forward(b.tokens, b.mask_pad, b.lengths);
      auto loss = torch::nn::functional::cross_entropy(logits, b.labels);
      const double value = loss.item<double>();
      if (!std::isfinite(value)) {
        outcome.diverged = true;
        outcome.stop_reason = "diverged: training loss is " + std::to_string(value) +
                              " at epoch " + std::to_string(epoch) + ", batch " +
                              std::to_string(batch_index);
        break;
      }
      loss.backward();
      if (options.clip > 0) torch::nn::utils::clip_grad_norm_(params, options.clip);
      optimizer->step();
      const int64_t n = b.labels.size(0);
      loss_sum += value * static_cast<double>(n);
      seen += n;
      correct += logits.detach().argmax(1).eq(b.labels).sum().item<int64_t>();
    }
    if (outcome.diverged) break;
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    EpochRecord r;
    r.epoch = epoch;
    r.train_loss = loss_sum / static_cast<double>(seen);
    r.train_acc = static_cast<double>(correct) / static_cast<double>(seen);
    r.dev_acc = classifierAccuracy(model, data.dev);
    r.test_acc = classifierAccuracy(model, data.test);
    r.lr = lr;
    r.seconds = seconds;
    r.examples_per_second = static_cast<double>(seen) / std::max(seconds, 1e-9);

    const auto decision = plateau.observe(r.dev_acc);
    outcome.epochs = epoch;
    outcome.train_seconds += seconds;
    if (decision.improved) {
      outcome.best_epoch = epoch;
      outcome.best_dev_acc = r.dev_acc;
      outcome.test_acc = r.test_acc;
      outcome.train_acc_at_best = r.train_acc;
    }
    outcome.final_lr = lr;
    if (hooks.on_epoch) hooks.on_epoch(r, outcome);
    if (decision.stop) {
      outcome.stop_reason = "early_stopping";
      break;
    }
    if (decision.decay_lr) {
      lr = std::max(options.min_lr, lr * options.lr_decay);
      setLearningRate(*optimizer, lr);
    }
  }
  return outcome;
}

}  // namespace recurlab::experiments
