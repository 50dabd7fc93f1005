#pragma once
// The one toy TrainingModel of the tests: a network regressing target(x) on fixed random data
// (by default y = sum of x), batches along `batch_dim`, optionally in a seeded order per epoch.
// Knobs for what a test needs: a crash at a given batch, scripted evaluation metrics, a loss
// factor (NaN: a diverging loss), the absolute error as a tally, a hook at each evaluation.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/search/seed_sequence.h"
#include "experiments/training/training_model.h"

namespace recurlab::testing {

struct ToyBatch : experiments::TrainBatch {
  torch::Tensor x;
  int64_t dim = 0;
  ToyBatch(torch::Tensor t, int64_t batch_dim) : x(std::move(t)), dim(batch_dim) {}
  // Examples i*B/n .. (i+1)*B/n: the part of data-parallel rank i of n.
  std::unique_ptr<experiments::TrainBatch> part(int i, int n) const override {
    const int64_t b = x.size(dim), from = b * i / n, to = b * (i + 1) / n;
    return std::make_unique<ToyBatch>(x.narrow(dim, from, to - from), dim);
  }
};

struct ToyRegression : experiments::TrainingModel {
  torch::nn::Sequential net;
  torch::Tensor x, dev;  // the training and dev examples, along batch_dim
  std::function<torch::Tensor(const torch::Tensor&)> target = [](const torch::Tensor& t) {
    return t.sum(1, true);
  };
  int64_t batch_dim = 0, batch_size = 4;
  bool shuffle = false;  // a seeded permutation of the examples per epoch
  int64_t fail_at_batch = -1, batches_done = 0;  // throws at that batch (a crash)
  std::vector<double> scripted;  // evaluate() returns these first, one per epoch
  double loss_factor = 1.0;
  bool tally_abs_error = false;  // the summed absolute error as tally "abs_error"
  std::function<void(ToyRegression&)> on_evaluate;  // called at every evaluation

  ToyRegression(torch::nn::Sequential network, torch::Tensor train, torch::Tensor held_out)
      : net(std::move(network)), x(std::move(train)), dev(std::move(held_out)) {}

  torch::nn::Module& module() override { return *net; }
  int64_t examples() const { return x.size(batch_dim); }
  int64_t batchesPerEpoch() override { return (examples() + batch_size - 1) / batch_size; }
  std::unique_ptr<experiments::TrainBatch> batch(int64_t epoch, int64_t i) override {
    if (++batches_done == fail_at_batch) throw std::runtime_error("crash");
    const int64_t size = std::min(batch_size, examples() - i * batch_size);
    if (!shuffle) return std::make_unique<ToyBatch>(x.narrow(batch_dim, i * batch_size, size), batch_dim);
    std::vector<int64_t> order;
    for (size_t k : experiments::seededPermutation(static_cast<size_t>(examples()),
                                                   static_cast<uint64_t>(epoch)))
      order.push_back(static_cast<int64_t>(k));
    return std::make_unique<ToyBatch>(
        x.index_select(batch_dim, torch::tensor(order).narrow(0, i * batch_size, size)),
        batch_dim);
  }
  experiments::StepOutput forward(const experiments::TrainBatch& b) override {
    const auto& t = static_cast<const ToyBatch&>(b).x;
    const auto y = net->forward(t).to(torch::kFloat);
    auto loss = torch::mse_loss(y, target(t));
    if (loss_factor != 1.0) loss = loss_factor * loss;
    experiments::StepOutput out{loss, t.size(batch_dim), {}};
    if (tally_abs_error)
      out.tally_values = (y.detach() - target(t)).abs().sum().to(torch::kDouble).reshape({1});
    return out;
  }
  std::vector<std::string> tallyNames() const override {
    return tally_abs_error ? std::vector<std::string>{"abs_error"} : std::vector<std::string>{};
  }
  std::vector<std::string> evaluationNames() const override { return {"dev_mse"}; }
  std::vector<double> evaluate() override {
    if (on_evaluate) on_evaluate(*this);
    if (!scripted.empty()) {
      const double m = scripted.front();
      scripted.erase(scripted.begin());
      return {m};
    }
    torch::NoGradGuard no_grad;
    net->eval();
    const double v = torch::mse_loss(net->forward(dev).to(torch::kFloat), target(dev)).item<double>();
    net->train();
    return {v};
  }
  std::string selectionName() const override { return "dev_mse"; }
  bool higherIsBetter() const override { return false; }
};

}  // namespace recurlab::testing
