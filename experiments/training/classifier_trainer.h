#pragma once
// Trains a TextClassifier on encoded sentences: Adam or SGD, weight decay, gradient clipping,
// early stopping on dev accuracy, lr decay on a plateau, divergence (NaN/inf loss) detection.
// The test accuracy reported is the one at the best dev epoch.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/data/sentence_batches.h"
#include "experiments/training/train_options.h"
#include "models/heads/text_classifier.h"

namespace recurlab::experiments {

struct EncodedSplits {
  std::vector<EncodedSentence> train, dev, test;
};

struct EpochRecord {
  int64_t epoch = 0;  // 1-based
  double train_loss = 0, train_acc = 0, dev_acc = 0, test_acc = 0;
  double lr = 0;      // the lr this epoch trained with
  double seconds = 0; // training time of the epoch (evaluation excluded)
  double examples_per_second = 0;
};

struct TrainOutcome {
  bool diverged = false;
  std::string stop_reason;  // "max_epochs", "early_stopping" or why it diverged
  int64_t epochs = 0;       // epochs completed
  int64_t best_epoch = 0;
  double best_dev_acc = 0, test_acc = 0, train_acc_at_best = 0;
  double train_seconds = 0;  // sum of EpochRecord::seconds
  double final_lr = 0;
};

struct TrainHooks {
  // After each epoch (rows for the log, progress line). May throw to abort training.
  std::function<void(const EpochRecord&, const TrainOutcome& so_far)> on_epoch;
};

// Deterministic for a given seed on CPU (torch's generator is seeded from it; the batch
// order is a seeded permutation per epoch).
TrainOutcome trainClassifier(models::TextClassifier& model, const EncodedSplits& data,
                             const TrainOptions& options, uint64_t seed,
                             const TrainHooks& hooks = {});

// Accuracy of `model` (in eval mode, no grad) on sentences.
double classifierAccuracy(models::TextClassifier& model,
                          const std::vector<EncodedSentence>& sentences, int64_t batch_size = 128);

}  // namespace recurlab::experiments
