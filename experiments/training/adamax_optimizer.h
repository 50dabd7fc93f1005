#pragma once
// Adamax (Kingma & Ba 2015, §7.1: Adam with the infinity norm), DrQA's optimizer. LibTorch 1.13
// has no torch::optim::Adamax; this one follows PyTorch's torch.optim.Adamax step for step:
//   g ← g + weight_decay·θ
//   m ← β1·m + (1 − β1)·g
//   u ← max(β2·u, |g| + eps)
//   θ ← θ − lr / (1 − β1^t) · m / u
// Its per-parameter state (step, m, u) is saved and loaded through the Optimizer archive like
// Adam's, so the Trainer's checkpoints resume it bit for bit.
#include <torch/optim/optimizer.h>
#include <torch/optim/serialize.h>

#include <tuple>
#include <vector>

namespace recurlab::experiments {

struct AdamaxOptions : public torch::optim::OptimizerCloneableOptions<AdamaxOptions> {
  AdamaxOptions(double lr = 2e-3) : lr_(lr) {}  // NOLINT: implicit like torch's options
  TORCH_ARG(double, lr) = 2e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;

 public:
  void serialize(torch::serialize::InputArchive& archive) override;
  void serialize(torch::serialize::OutputArchive& archive) const override;
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
};

struct AdamaxParamState : public torch::optim::OptimizerCloneableParamState<AdamaxParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(torch::Tensor, exp_avg);  // m
  TORCH_ARG(torch::Tensor, exp_inf);  // u, the exponentially weighted infinity norm

 public:
  void serialize(torch::serialize::InputArchive& archive) override;
  void serialize(torch::serialize::OutputArchive& archive) const override;
};

class Adamax : public torch::optim::Optimizer {
 public:
  explicit Adamax(std::vector<torch::Tensor> params, AdamaxOptions defaults = {});

  torch::Tensor step(LossClosure closure = nullptr) override;
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;
};

}  // namespace recurlab::experiments
