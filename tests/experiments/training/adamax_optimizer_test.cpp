// Adamax against two steps computed by hand (PyTorch's torch.optim.Adamax update, Kingma & Ba
// 2015 §7.1), and its state through a save/load round trip: a resumed optimizer continues
// bit for bit like an uninterrupted one (the Trainer checkpoints it with the same calls).
#include "experiments/training/adamax_optimizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "tests/support/temp_root.h"

namespace recurlab::experiments {
namespace {

torch::Tensor doubles(std::vector<double> v) {
  return torch::tensor(v, torch::dtype(torch::kDouble));
}

TEST(Adamax, EqualsTwoHandComputedSteps) {
  // theta = (1, -2), grads (0.5, -0.1) then (0.1, 0.3), lr 0.002, betas (0.9, 0.999), eps 1e-8:
  // step 1: m = (0.05, -0.01), u = (0.50000001, 0.10000001), lr/(1 - 0.9) = 0.02
  //         theta = (1 - 0.02·0.05/0.50000001, -2 + 0.02·0.01/0.10000001)
  // step 2: m = (0.055, 0.021), u = (max(0.999·0.50000001, 0.10000001), 0.30000001),
  //         lr/(1 - 0.81)
  auto theta = doubles({1.0, -2.0}).requires_grad_();
  Adamax opt({theta}, AdamaxOptions(0.002));
  theta.mutable_grad() = doubles({0.5, -0.1});
  opt.step();
  EXPECT_NEAR(theta[0].item<double>(), 0.99800000004, 1e-15);
  EXPECT_NEAR(theta[1].item<double>(), -1.9980000002, 1e-15);
  theta.mutable_grad() = doubles({0.1, 0.3});
  opt.step();
  const double clr = 0.002 / (1 - 0.81);
  EXPECT_NEAR(theta[0].item<double>(), 0.99800000004 - clr * 0.055 / (0.999 * 0.50000001), 1e-15);
  EXPECT_NEAR(theta[1].item<double>(), -1.9980000002 - clr * 0.021 / 0.30000001, 1e-15);
  EXPECT_NEAR(theta[0].item<double>(), 0.9968409462725484, 1e-15);  // the same in Python
  EXPECT_NEAR(theta[1].item<double>(), -1.9987368422807017, 1e-15);
}

TEST(Adamax, WeightDecayIsAddedToTheGradient) {
  auto theta = doubles({2.0}).requires_grad_();
  Adamax opt({theta}, AdamaxOptions(0.1).weight_decay(0.5));
  theta.mutable_grad() = doubles({-3.0});  // g = -3 + 0.5·2 = -2: m = -0.2, u = 2 + 1e-8
  opt.step();
  EXPECT_NEAR(theta.item<double>(), 2.0 + 1.0 * 0.2 / (2.0 + 1e-8), 1e-15);
}

std::vector<torch::Tensor> gradsAt(int step) {
  torch::manual_seed(100 + step);
  return {torch::randn({3, 4}, torch::kDouble), torch::randn({5}, torch::kDouble)};
}

TEST(Adamax, ResumesFromSavedStateBitIdentically) {
  auto make = [] {
    torch::manual_seed(7);
    return std::vector<torch::Tensor>{torch::randn({3, 4}, torch::kDouble).requires_grad_(),
                                      torch::randn({5}, torch::kDouble).requires_grad_()};
  };
  auto run = [](Adamax& opt, std::vector<torch::Tensor>& params, int from, int to) {
    for (int s = from; s < to; ++s) {
      const auto g = gradsAt(s);
      for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = g[i].clone();
      opt.step();
    }
  };
  auto whole = make();
  Adamax a(whole, AdamaxOptions(0.01));
  run(a, whole, 0, 6);

  auto first = make();
  Adamax b(first, AdamaxOptions(0.01));
  run(b, first, 0, 3);
  const auto file = recurlab::testing::perProcessTempPath("recurlab_adamax_", ".pt");
  {
    torch::serialize::OutputArchive out;
    b.save(out);
    out.save_to(file.string());
  }
  std::vector<torch::Tensor> resumed;
  for (const auto& p : first) resumed.push_back(p.detach().clone().requires_grad_());
  // LibTorch's optimizer archives restore the state, not the options (as for Adam): the
  // Trainer rebuilds the optimizer from the config and sets the learning rate it saved.
  Adamax c(resumed, AdamaxOptions(0.01));
  {
    torch::serialize::InputArchive in;
    in.load_from(file.string());
    c.load(in);
  }
  std::filesystem::remove(file);
  run(c, resumed, 3, 6);
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(torch::equal(whole[i], resumed[i])) << i;
  // Without the state the continuation differs (the test can tell).
  std::vector<torch::Tensor> fresh;
  for (const auto& p : first) fresh.push_back(p.detach().clone().requires_grad_());
  Adamax d(fresh, AdamaxOptions(0.01));
  run(d, fresh, 3, 6);
  EXPECT_FALSE(torch::equal(whole[0], fresh[0]));
}

TEST(Adamax, RejectsInvalidOptions) {
  auto theta = doubles({1.0}).requires_grad_();
  EXPECT_THROW(Adamax({theta}, AdamaxOptions(-1.0)), c10::Error);
  EXPECT_THROW(Adamax({theta}, AdamaxOptions(0.1).betas({1.0, 0.9})), c10::Error);
}

}  // namespace
}  // namespace recurlab::experiments
