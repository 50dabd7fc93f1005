#include "experiments/training/sparse_row_optimizer.h"

#include <cmath>
#include <stdexcept>

namespace recurlab::experiments {

SparseRowOptimizer::SparseRowOptimizer(std::vector<torch::Tensor> params,
                                       SparseRowOptimizerOptions options)
    : params_(std::move(params)), options_(std::move(options)) {
  if (options_.kind != "adam" && options_.kind != "adamw" && options_.kind != "sgd")
    throw std::invalid_argument("SparseRowOptimizer: unknown kind '" + options_.kind + "'");
  for (const auto& p : params_) {
    exp_avg_.push_back(torch::zeros_like(p));
    exp_avg_sq_.push_back(torch::zeros_like(p));
    steps_.push_back(0);
  }
}

void SparseRowOptimizer::zeroGrad() {
  for (auto& p : params_) p.mutable_grad() = torch::Tensor();
}

void SparseRowOptimizer::step() {
  torch::NoGradGuard no_grad;
  const auto& o = options_;
  for (size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i];
    if (!p.grad().defined()) continue;
    torch::Tensor rows, g;
    if (p.grad().is_sparse()) {
      const auto grad = p.grad().coalesce();
      rows = grad.indices()[0];
      g = grad.values();
    } else {
      rows = torch::arange(p.size(0), torch::TensorOptions().dtype(torch::kLong));
      g = p.grad();
    }
    auto values = p.index_select(0, rows);
    if (o.kind == "sgd") {
      if (o.weight_decay != 0) g = g + o.weight_decay * values;
      p.index_add_(0, rows, g * (-o.lr));
      continue;
    }
    if (o.kind == "adam" && o.weight_decay != 0) g = g + o.weight_decay * values;
    const int64_t step = ++steps_[i];
    auto m = exp_avg_[i].index_select(0, rows);
    auto v = exp_avg_sq_[i].index_select(0, rows);
    m.mul_(o.beta1).add_(g, 1 - o.beta1);
    v.mul_(o.beta2).addcmul_(g, g, 1 - o.beta2);
    exp_avg_[i].index_copy_(0, rows, m);
    exp_avg_sq_[i].index_copy_(0, rows, v);
    const double bias1 = 1 - std::pow(o.beta1, static_cast<double>(step));
    const double bias2 = 1 - std::pow(o.beta2, static_cast<double>(step));
    auto update = m / (v.sqrt() / std::sqrt(bias2)).add_(o.eps) * (o.lr / bias1);
    if (o.kind == "adamw" && o.weight_decay != 0) update.add_(values, o.lr * o.weight_decay);
    p.index_add_(0, rows, -update);
  }
  zeroGrad();
}

void SparseRowOptimizer::save(torch::serialize::OutputArchive& archive) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string k = std::to_string(i);
    archive.write("exp_avg_" + k, exp_avg_[i]);
    archive.write("exp_avg_sq_" + k, exp_avg_sq_[i]);
    archive.write("step_" + k, torch::tensor(steps_[i]));
  }
}

void SparseRowOptimizer::load(torch::serialize::InputArchive& archive) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::string k = std::to_string(i);
    torch::Tensor m, v, step;  // fresh tensors: reading into a defined one keeps its dtype
    archive.read("exp_avg_" + k, m);
    exp_avg_[i].copy_(m);
    archive.read("exp_avg_sq_" + k, v);
    exp_avg_sq_[i].copy_(v);
    archive.read("step_" + k, step);
    steps_[i] = step.item<int64_t>();
  }
}

}  // namespace recurlab::experiments
