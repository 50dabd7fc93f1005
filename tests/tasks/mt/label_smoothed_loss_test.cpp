// Label-smoothed cross-entropy against a hand-computed case and a naive reference (the
// smoothed target distribution written out) in double precision.
#include "tasks/mt/label_smoothed_loss.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

using namespace recurlab::experiments;

TEST(LabelSmoothedLoss, HandComputedCase) {
  // p = softmax(0, ln 2, 0, 0) = (1/5, 2/5, 1/5, 1/5), target 1, eps 0.1: the target gets 0.9
  // and each of the 3 others 0.1/3, so loss = 0.9 ln(5/2) + 0.1 ln 5; row 2 is pad.
  auto logits = torch::tensor({0.0, std::log(2.0), 0.0, 0.0, 5.0, -1.0, 2.0, 0.5},
                              torch::kDouble).view({2, 4});
  const auto target = torch::tensor({1, 0}, torch::kLong);
  const auto pad = torch::tensor({false, true});
  const auto out = labelSmoothedCrossEntropy(logits, target, pad, 0.1);
  EXPECT_NEAR(out.loss.item<double>(), 0.9 * std::log(2.5) + 0.1 * std::log(5.0), 1e-12);
  EXPECT_NEAR(out.nll.item<double>(), std::log(2.5), 1e-12);
  EXPECT_EQ(out.tokens, 1);
}

TEST(LabelSmoothedLoss, EqualsCrossEntropyWithTheSmoothedDistribution) {
  torch::manual_seed(3);
  const int64_t T = 3, B = 2, V = 7;
  const double eps = 0.2;
  auto logits = torch::randn({T, B, V}, torch::kDouble).requires_grad_();
  const auto target = torch::randint(0, V, {T, B}, torch::kLong);
  const auto pad = torch::tensor({false, false, false, false, true, false}).view({T, B});
  const auto out = labelSmoothedCrossEntropy(logits, target, pad, eps);
  double expected = 0;
  const auto lp = torch::log_softmax(logits, -1);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b) {
      if (pad[t][b].item<bool>()) continue;
      for (int64_t v = 0; v < V; ++v) {
        const double q = v == target[t][b].item<int64_t>() ? 1 - eps : eps / (V - 1);
        expected -= q * lp[t][b][v].item<double>();
      }
    }
  EXPECT_NEAR(out.loss.item<double>(), expected, 1e-12);
  EXPECT_EQ(out.tokens, 5);
  // Without smoothing the loss is the NLL.
  const auto plain = labelSmoothedCrossEntropy(logits, target, pad, 0.0);
  EXPECT_NEAR(plain.loss.item<double>(), plain.nll.item<double>(), 1e-12);
  // Pad rows get no gradient.
  out.loss.backward();
  EXPECT_EQ(logits.grad()[2][0].abs().sum().item<double>(), 0.0);
  EXPECT_GT(logits.grad()[0][0].abs().sum().item<double>(), 0.0);
}

TEST(LabelSmoothedLoss, RejectsEpsilonOutOfRange) {
  const auto logits = torch::zeros({1, 3});
  EXPECT_THROW(labelSmoothedCrossEntropy(logits, torch::zeros({1}, torch::kLong),
                                         torch::zeros({1}, torch::kBool), 1.0),
               std::invalid_argument);
}
