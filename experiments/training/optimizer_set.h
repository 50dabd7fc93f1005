#pragma once
// The optimizers of one model: a dense torch optimizer (Adam, AdamW, SGD, Adamax) for the
// parameters with dense gradients and a SparseRowOptimizer for those with sparse ones, driven
// together.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "experiments/training/optimizer_options.h"
#include "experiments/training/sparse_row_optimizer.h"

namespace recurlab::experiments {

class TrainingModel;

struct OptimizerSet {
  std::unique_ptr<torch::optim::Optimizer> dense;
  std::unique_ptr<SparseRowOptimizer> sparse;
  std::vector<torch::Tensor> all;  // every trainable parameter, in module order (clipping)

  void zeroGrad();
  void setLearningRate(double lr);
  void step();
};

// Bad combinations (momentum or adamax with sparse gradients) are errors naming the key.
OptimizerSet makeOptimizers(TrainingModel& model, const OptimizerOptions& options);

}  // namespace recurlab::experiments
