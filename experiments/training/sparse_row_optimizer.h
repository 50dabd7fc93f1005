#pragma once
// Updates parameters whose gradients are sparse (rows of an embedding table touched by the
// batch), which LibTorch 1.13's Adam/AdamW/SGD do not accept. Adam and AdamW are lazy, as
// PyTorch's SparseAdam: only the touched rows' moments and values change, so rows absent from
// a batch keep their moments (dense Adam would decay them and keep moving the rows); that is
// the price of not touching the whole table at every step. Weight decay is applied to the
// touched rows only (L2 added to their gradient for adam, decoupled for adamw). SGD has no
// momentum here (a momentum buffer would touch every row).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace recurlab::experiments {

struct SparseRowOptimizerOptions {
  std::string kind = "adam";  // adam, adamw or sgd
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // torch's Adam defaults
  double weight_decay = 0.0;
};

class SparseRowOptimizer {
 public:
  SparseRowOptimizer(std::vector<torch::Tensor> params, SparseRowOptimizerOptions options);

  void setLearningRate(double lr) { options_.lr = lr; }
  // Applies every parameter's (sparse or dense) gradient, then clears it.
  void step();
  void zeroGrad();

  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

 private:
  std::vector<torch::Tensor> params_;
  SparseRowOptimizerOptions options_;
  std::vector<torch::Tensor> exp_avg_, exp_avg_sq_;
  std::vector<int64_t> steps_;
};

}  // namespace recurlab::experiments
