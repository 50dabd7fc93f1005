// The QRNN, rational and n-gram CPU kernels give bit-identical outputs and gradients with one
// thread and with several (their at::parallel_for splits columns, never a sum), as the SRU's
// do (sru_recurrence_test.cpp): training is deterministic whatever --threads says.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
using Op = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Sizes that give every thread several column blocks (64 columns each) and sequences.
constexpr int64_t L = 70, B = 6, D = 200;

Tensor padMask() {
  auto m = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 1; b < B; ++b) m.slice(0, L - 7 * b, L).select(1, b).fill_(true);
  return m;
}

// Outputs and the gradients of a fixed random weighting of them, with `threads` threads.
std::vector<Tensor> run(const Op& op, const std::vector<Tensor>& inputs, int threads) {
  const int before = at::get_num_threads();
  at::set_num_threads(threads);
  std::vector<Tensor> leaves;
  for (const auto& t : inputs)
    leaves.push_back(t.defined() && t.is_floating_point() && t.requires_grad()
                         ? t.detach().clone().requires_grad_(true)
                         : t);
  const auto out = op(leaves);
  torch::manual_seed(99);
  Tensor loss = torch::zeros({}, torch::kFloat);
  for (const auto& o : out)
    loss = loss + (torch::where(torch::isfinite(o), o, torch::zeros_like(o)) *
                   torch::randn(o.sizes(), torch::kFloat))
                      .sum();
  loss.backward();
  std::vector<Tensor> result(out.begin(), out.end());
  for (const auto& t : leaves)
    if (t.defined() && t.requires_grad()) result.push_back(t.grad());
  at::set_num_threads(before);
  return result;
}

void expectSameWithOneAndManyThreads(const Op& op, const std::vector<Tensor>& inputs,
                                     const std::string& what) {
  const int many = std::max(4, at::get_num_threads());
  const auto one = run(op, inputs, 1), several = run(op, inputs, many);
  ASSERT_EQ(one.size(), several.size()) << what;
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_TRUE(one[i].defined() && several[i].defined()) << what << " result " << i;
    // equal() is false for NaN: compare the bits through an integer view.
    EXPECT_TRUE(torch::equal(one[i].contiguous().view(torch::kInt32),
                             several[i].contiguous().view(torch::kInt32)))
        << what << ": result " << i << " differs between 1 and " << many << " threads";
  }
}

Tensor randn(std::vector<int64_t> shape) {
  return torch::randn(shape, torch::kFloat).requires_grad_(true);
}

TEST(ThreadCountIndependence, QrnnPooling) {
  for (bool gate : {false, true}) {
    torch::manual_seed(1);
    const QrnnPoolingOptions opt{D, gate};
    expectSameWithOneAndManyThreads(
        [&](const std::vector<Tensor>& x) { return qrnnPooling(x[0], x[1], x[2], x[3], opt); },
        {randn({L, B, D * opt.numMatrices()}), randn({B, D}),
         torch::bernoulli(torch::full({L, B, D}, 0.7)), padMask()},
        gate ? "qrnn with output gate" : "qrnn");
  }
}

TEST(ThreadCountIndependence, RationalRecurrence) {
  for (RationalPattern pattern : {RationalPattern::B, RationalPattern::C, RationalPattern::F})
    for (Semiring semiring : {Semiring::PlusTimes, Semiring::MaxPlus}) {
      torch::manual_seed(2);
      const RationalRecurrenceOptions opt{D, pattern, semiring, true};
      expectSameWithOneAndManyThreads(
          [&](const std::vector<Tensor>& x) {
            return rationalRecurrence(x[0], x[1], x[2], x[3], opt);
          },
          {randn({L, B, D * opt.numMatrices()}),
           pattern == RationalPattern::F ? randn({opt.numWeights()}) : Tensor(),
           randn({B, opt.numStates() * D}), padMask()},
          "rational pattern " + std::to_string(static_cast<int>(pattern)) +
              (semiring == Semiring::MaxPlus ? " max-plus" : " plus-times"));
    }
}

TEST(ThreadCountIndependence, NgramRecurrence) {
  for (int64_t n : {1, 3}) {
    torch::manual_seed(3);
    const NgramRecurrenceOptions opt{D, n, true};
    expectSameWithOneAndManyThreads(
        [&](const std::vector<Tensor>& x) { return ngramRecurrence(x[0], x[1], x[2], opt); },
        {randn({L, B, D * opt.numMatrices()}), randn({B, n * D}), padMask()},
        "ngram n=" + std::to_string(n));
  }
}

}  // namespace
}  // namespace recurlab::kernels
