#pragma once
// A classification unit's "train" object, split by concern: the optimizer's keys
// (OptimizerOptions), the loop's (TrainerOptions) and the classifier's own
// (ClassifierOptions: batches, embeddings, dropout, subsampling).
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"

namespace recurlab::experiments {

struct ClassifierOptions {
  int64_t batch_size = 32;
  int64_t embed_dim = 300;         // ignored when pretrained vectors fix it
  double embed_dropout = 0.5;
  double dropout = 0.5;            // before the output layer
  int64_t max_train_examples = 0;  // 0 = all; >0 keeps the first n of the shuffled train set
  // Trained embeddings get sparse gradients (only the batch's rows), updated by the
  // SparseRowOptimizer: the table no longer dominates the epoch. Lazy Adam differs from
  // dense Adam (see sparse_row_optimizer.h); false reproduces the dense update.
  bool sparse_embedding = true;
};

struct ClassificationTrainOptions {
  OptimizerOptions optimizer;
  TrainerOptions trainer;
  ClassifierOptions classifier;

  // Checked read: unknown keys, wrong types and out-of-range values throw
  // std::invalid_argument naming `where`.key and what is accepted.
  static ClassificationTrainOptions fromJson(const nlohmann::json& train, const std::string& where);
};

}  // namespace recurlab::experiments
