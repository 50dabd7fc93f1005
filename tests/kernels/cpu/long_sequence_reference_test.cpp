// The float kernels on sequences longer than 64 steps against the naive double reference
// (float_backward_test.cpp compares those lengths only with the kernel itself in double):
// 128 steps, forward outputs and every per-step gradient within 16·eps·sqrt(L)·(1 + max|x|)
// (the bound of float_backward_test.cpp; eps = 2^-24), parameter gradients within
// 16·eps·(L·B)·(1 + max|x|).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
using Op = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

constexpr double kEps = std::numeric_limits<float>::epsilon() / 2;
constexpr int64_t L = 128, B = 2, D = 8;

Tensor padMask() {
  auto m = torch::zeros({L, B}, torch::kBool);
  m.slice(0, L - 37, L).select(1, 1).fill_(true);
  return m;
}

// Runs `fused` on float copies and `reference` on the same values in double; compares the
// outputs and the gradients of one random weighting of them. `per_step[i]`: input i's gradient
// is per step (else a parameter's, summed over all steps).
void expectCloseToReference(const Op& fused, const Op& reference, const std::vector<Tensor>& in,
                            const std::vector<bool>& per_step, const std::string& what) {
  SCOPED_TRACE(what);
  std::vector<Tensor> f_in, d_in;
  for (const auto& t : in) {
    if (!t.defined() || !t.is_floating_point() || !t.requires_grad()) {
      f_in.push_back(t.defined() && t.is_floating_point() ? t.to(torch::kFloat) : t);
      d_in.push_back(t.defined() && t.is_floating_point() ? t.to(torch::kFloat).to(torch::kDouble)
                                                          : t);
      continue;
    }
    const Tensor f = t.detach().to(torch::kFloat);
    f_in.push_back(f.clone().requires_grad_(true));
    d_in.push_back(f.to(torch::kDouble).requires_grad_(true));
  }
  const auto f_out = fused(f_in), d_out = reference(d_in);
  ASSERT_EQ(f_out.size(), d_out.size());
  torch::manual_seed(5);
  Tensor f_loss = torch::zeros({}, torch::kFloat), d_loss = torch::zeros({}, torch::kDouble);
  for (size_t k = 0; k < f_out.size(); ++k) {
    const Tensor w = torch::randn(f_out[k].sizes(), torch::kFloat);
    const auto finite = torch::isfinite(d_out[k]);
    ASSERT_TRUE(torch::equal(torch::isfinite(f_out[k]), finite)) << "output " << k;
    const Tensor fo = torch::where(finite, f_out[k], torch::zeros_like(f_out[k]));
    const Tensor dout = torch::where(finite, d_out[k], torch::zeros_like(d_out[k]));
    const double bound = 16 * kEps * std::sqrt(double(L)) * (1 + dout.abs().max().item<double>());
    const double error = (fo.to(torch::kDouble) - dout).abs().max().item<double>();
    EXPECT_LE(error, bound) << "output " << k;
    f_loss = f_loss + (fo * w).sum();
    d_loss = d_loss + (dout * w.to(torch::kDouble)).sum();
  }
  f_loss.backward();
  d_loss.backward();
  for (size_t i = 0; i < in.size(); ++i) {
    if (!f_in[i].defined() || !f_in[i].requires_grad()) continue;
    ASSERT_TRUE(f_in[i].grad().defined() && d_in[i].grad().defined()) << "input " << i;
    const Tensor ref = d_in[i].grad();
    const double scale = 1 + ref.abs().max().item<double>();
    const double bound = 16 * kEps * (per_step[i] ? std::sqrt(double(L)) : double(L * B)) * scale;
    const double error = (f_in[i].grad().to(torch::kDouble) - ref).abs().max().item<double>();
    EXPECT_LE(error, bound) << "gradient of input " << i;
  }
}

Tensor randn(std::vector<int64_t> shape, double scale = 1.0) {
  return (torch::randn(shape, torch::kDouble) * scale).requires_grad_(true);
}

TEST(LongSequenceReference, SruRecurrence) {
  for (bool bidirectional : {false, true}) {
    torch::manual_seed(20);
    SruRecurrenceOptions opt;
    opt.hidden_size = D;
    opt.bidirectional = bidirectional;
    const int64_t dirs = bidirectional ? 2 : 1;
    expectCloseToReference(
        [&](const std::vector<Tensor>& x) {
          return sruRecurrence(x[0], x[1], x[2], x[3], x[4], {}, x[5], opt);
        },
        [&](const std::vector<Tensor>& x) {
          return sruRecurrenceReference(x[0], x[1], x[2], x[3], x[4], {}, x[5], opt);
        },
        {randn({L, B, 3 * D * dirs}), randn({L, B, D * dirs}), randn({2 * D * dirs}, 0.5),
         randn({2 * D * dirs}, 0.5), randn({B, D * dirs}), padMask()},
        {true, true, false, false, true, true}, bidirectional ? "sru bidirectional" : "sru");
  }
}

TEST(LongSequenceReference, QrnnPooling) {
  torch::manual_seed(21);
  const QrnnPoolingOptions opt{D, true};
  expectCloseToReference(
      [&](const std::vector<Tensor>& x) { return qrnnPooling(x[0], x[1], x[2], x[3], opt); },
      [&](const std::vector<Tensor>& x) {
        return qrnnPoolingReference(x[0], x[1], x[2], x[3], opt);
      },
      {randn({L, B, D * opt.numMatrices()}), randn({B, D}),
       torch::bernoulli(torch::full({L, B, D}, 0.7, torch::kDouble)), padMask()},
      {true, true, true, true}, "qrnn");
}

TEST(LongSequenceReference, RationalRecurrence) {
  for (const auto& [pattern, semiring] : {std::pair{RationalPattern::B, Semiring::PlusTimes},
                                          std::pair{RationalPattern::F, Semiring::MaxPlus}}) {
    torch::manual_seed(22);
    const RationalRecurrenceOptions opt{D, pattern, semiring, true};
    expectCloseToReference(
        [&](const std::vector<Tensor>& x) {
          return rationalRecurrence(x[0], x[1], x[2], x[3], opt);
        },
        [&](const std::vector<Tensor>& x) {
          return rationalRecurrenceReference(x[0], x[1], x[2], x[3], opt);
        },
        {randn({L, B, D * opt.numMatrices()}),
         pattern == RationalPattern::F ? randn({opt.numWeights()}) : Tensor(),
         randn({B, opt.numStates() * D}), padMask()},
        {true, false, true, true},
        "rational pattern " + std::to_string(static_cast<int>(pattern)) +
            (semiring == Semiring::MaxPlus ? " max-plus" : " plus-times"));
  }
}

TEST(LongSequenceReference, NgramRecurrence) {
  torch::manual_seed(23);
  const NgramRecurrenceOptions opt{D, 3, true};
  expectCloseToReference(
      [&](const std::vector<Tensor>& x) { return ngramRecurrence(x[0], x[1], x[2], opt); },
      [&](const std::vector<Tensor>& x) { return ngramRecurrenceReference(x[0], x[1], x[2], opt); },
      {randn({L, B, D * opt.numMatrices()}), randn({B, 3 * D}), padMask()}, {true, true, true},
      "ngram n=3");
}

}  // namespace
}  // namespace recurlab::kernels
