#include "experiments/training/optimizer_set.h"

#include <stdexcept>

#include "experiments/training/adamax_optimizer.h"
#include "experiments/training/trainer.h"

namespace recurlab::experiments {

void OptimizerSet::zeroGrad() {
  if (dense) dense->zero_grad();
  if (sparse) sparse->zeroGrad();
}

void OptimizerSet::setLearningRate(double lr) {
  if (dense)
    for (auto& group : dense->param_groups()) group.options().set_lr(lr);
  if (sparse) sparse->setLearningRate(lr);
}

void OptimizerSet::step() {
  if (dense) dense->step();
  if (sparse) sparse->step();
}

OptimizerSet makeOptimizers(TrainingModel& model, const OptimizerOptions& o) {
  OptimizerSet opt;
  const auto sparse = model.sparseParameters();
  auto isSparse = [&](const torch::Tensor& p) {
    for (const auto& s : sparse)
      if (s.unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) return true;
    return false;
  };
  std::vector<torch::Tensor> dense;
  for (const auto& p : model.module().parameters()) {
    if (!p.requires_grad()) continue;
    opt.all.push_back(p);
    if (!isSparse(p)) dense.push_back(p);
  }
  if (!dense.empty()) {
    if (o.optimizer == "sgd")
      opt.dense = std::make_unique<torch::optim::SGD>(
          dense, torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
    else if (o.optimizer == "adamax")
      opt.dense = std::make_unique<Adamax>(
          dense, AdamaxOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
    else if (o.optimizer == "adamw")
      opt.dense = std::make_unique<torch::optim::AdamW>(
          dense, torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
    else
      opt.dense = std::make_unique<torch::optim::Adam>(
          dense, torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay).betas({o.beta1, o.beta2}).eps(o.eps));
  }
  std::vector<torch::Tensor> trained_sparse;
  for (const auto& s : sparse)
    if (s.requires_grad()) trained_sparse.push_back(s);
  if (!trained_sparse.empty()) {
    if (o.optimizer == "sgd" && o.momentum != 0)
      throw std::invalid_argument(
          "train.momentum: SGD with momentum cannot update sparse embedding gradients; set "
          "train.sparse_embedding=false or train.momentum=0");
    if (o.optimizer == "adamax")
      throw std::invalid_argument(
          "train.optimizer: adamax has no lazy sparse-row update; set "
          "train.sparse_embedding=false or use adam/adamw/sgd");
    SparseRowOptimizerOptions so;
    so.kind = o.optimizer;
    so.lr = o.lr;
    so.weight_decay = o.weight_decay;
    opt.sparse = std::make_unique<SparseRowOptimizer>(trained_sparse, so);
  }
  return opt;
}

}  // namespace recurlab::experiments
