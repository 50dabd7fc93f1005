// The fused label-smoothed cross-entropy against its naive composition (log_softmax, gather,
// sum) in float and double, its gradient by central finite differences, thread-count
// independence and its input checks.
#include "kernels/label_smoothed_cross_entropy.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

namespace recurlab::kernels {
namespace {

struct Naive {
  torch::Tensor loss, nll;
};

Naive naive(const torch::Tensor& logits, const torch::Tensor& target, const torch::Tensor& keep,
            double epsilon) {
  const int64_t V = logits.size(1);
  const auto lprobs = torch::log_softmax(logits, -1);
  const auto k = keep.to(logits.scalar_type());
  const auto nll = -lprobs.gather(1, target.unsqueeze(1)).squeeze(1) * k;
  const auto smooth = -lprobs.sum(1) * k;
  const double each = epsilon / static_cast<double>(V - 1);
  return {(1.0 - epsilon - each) * nll.sum() + each * smooth.sum(), nll.sum().detach()};
}

struct Inputs {
  torch::Tensor logits, target, keep;
};

Inputs randomInputs(int64_t N, int64_t V, torch::Dtype dtype, uint64_t seed) {
  torch::manual_seed(seed);
  Inputs in;
  in.logits = (torch::randn({N, V}, torch::dtype(dtype)) * 3.0).requires_grad_(true);
  in.target = torch::randint(0, V, {N}, torch::kLong);
  in.keep = torch::rand({N}) > 0.25;
  in.keep[0] = true;
  return in;
}

void expectMatchesNaive(torch::Dtype dtype, double rtol, double atol) {
  // V odd and not a multiple of any vector width; a pad row's target is out of range (ignored).
  Inputs in = randomInputs(37, 1001, dtype, 3);
  in.keep[5] = false;
  in.target[5] = -1;
  const double epsilon = 0.1, upstream = 0.7;
  auto [loss, nll] = labelSmoothedCrossEntropy(in.logits, in.target, in.keep, epsilon);
  (loss * upstream).backward();
  const torch::Tensor grad = in.logits.grad().clone();
  in.logits.mutable_grad().zero_();
  const Naive ref = naive(in.logits, in.target.clamp_min(0), in.keep, epsilon);
  (ref.loss * upstream).backward();
  EXPECT_NEAR(loss.item<double>(), ref.loss.item<double>(), rtol * std::abs(ref.loss.item<double>()));
  EXPECT_NEAR(nll.item<double>(), ref.nll.item<double>(), rtol * std::abs(ref.nll.item<double>()));
  EXPECT_FALSE(nll.requires_grad());
  EXPECT_TRUE(torch::allclose(grad, in.logits.grad(), rtol, atol))
      << "largest difference " << (grad - in.logits.grad()).abs().max().item<double>();
  EXPECT_EQ(grad[5].abs().sum().item<double>(), 0.0);  // a pad row gets no gradient
}

TEST(LabelSmoothedCrossEntropy, FloatMatchesTheNaiveComposition) {
  expectMatchesNaive(torch::kFloat, 1e-5, 1e-7);
}

TEST(LabelSmoothedCrossEntropy, DoubleMatchesTheNaiveComposition) {
  expectMatchesNaive(torch::kDouble, 1e-12, 1e-15);
}

TEST(LabelSmoothedCrossEntropy, GradientMatchesCentralFiniteDifferences) {
  Inputs in = randomInputs(4, 7, torch::kDouble, 5);
  in.keep[2] = false;
  const double epsilon = 0.2, h = 1e-6;
  auto value = [&](const torch::Tensor& z) {
    return labelSmoothedCrossEntropy(z, in.target, in.keep, epsilon).first.item<double>();
  };
  labelSmoothedCrossEntropy(in.logits, in.target, in.keep, epsilon).first.backward();
  const torch::Tensor z = in.logits.detach();
  auto acc = in.logits.grad().accessor<double, 2>();
  for (int64_t i = 0; i < z.size(0); ++i)
    for (int64_t j = 0; j < z.size(1); ++j) {
      torch::Tensor up = z.clone(), down = z.clone();
      up[i][j] += h;
      down[i][j] -= h;
      EXPECT_NEAR(acc[i][j], (value(up) - value(down)) / (2 * h), 1e-7) << "row " << i << ", column " << j;
    }
}

TEST(LabelSmoothedCrossEntropy, SameResultForOneAndTwoThreads) {
  Inputs in = randomInputs(64, 513, torch::kFloat, 7);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const double one = labelSmoothedCrossEntropy(in.logits, in.target, in.keep, 0.1).first.item<double>();
  at::set_num_threads(2);
  const double two = labelSmoothedCrossEntropy(in.logits, in.target, in.keep, 0.1).first.item<double>();
  at::set_num_threads(threads);
  EXPECT_EQ(one, two);
}

TEST(LabelSmoothedCrossEntropy, BadInputIsAClearError) {
  Inputs in = randomInputs(3, 5, torch::kFloat, 1);
  in.keep.fill_(true);
  in.target[1] = 5;
  try {
    labelSmoothedCrossEntropy(in.logits, in.target, in.keep, 0.1);
    FAIL() << "a target outside the vocabulary was accepted";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("targets must lie in [0, 5)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(labelSmoothedCrossEntropy(in.logits, in.target.clamp_max(4), in.keep, 1.0), c10::Error);
  EXPECT_THROW(labelSmoothedCrossEntropy(in.logits.to(torch::kHalf), in.target.clamp_max(4), in.keep, 0.1),
               c10::Error);
}

}  // namespace
}  // namespace recurlab::kernels
