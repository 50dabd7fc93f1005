#include "tests/kernels/cpu/recurrence_check.h"

#include <gtest/gtest.h>

namespace recurlab::testing {
namespace {

std::vector<torch::Tensor> leavesOf(const std::vector<torch::Tensor>& inputs) {
  std::vector<torch::Tensor> out;
  for (const auto& t : inputs) {
    if (t.defined() && t.requires_grad())
      out.push_back(t.detach().clone().set_requires_grad(true));
    else
      out.push_back(t);
  }
  return out;
}

}  // namespace

torch::Tensor projectOutputs(const std::vector<torch::Tensor>& outputs, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  torch::Tensor loss = torch::zeros({}, outputs.front().options());
  for (const auto& o : outputs) {
    if (!o.defined()) continue;
    // Finite masks (max-plus states may be -inf before the first real step).
    const torch::Tensor w = torch::randn(o.sizes(), gen, o.options().requires_grad(false));
    const torch::Tensor safe = torch::where(torch::isfinite(o), o, torch::zeros_like(o));
    loss = loss + (safe * w).sum();
  }
  return loss;
}

void expectSameForwardBackward(const RecurrenceOp& fused, const RecurrenceOp& reference,
                               const std::vector<torch::Tensor>& inputs, double tol) {
  auto a_in = leavesOf(inputs), b_in = leavesOf(inputs);
  auto a = fused(a_in), b = reference(b_in);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].sizes(), b[i].sizes()) << "output " << i;
    // Equal infinities (max-plus semiring zero) compare equal.
    EXPECT_TRUE(torch::equal(torch::isfinite(a[i]), torch::isfinite(b[i]))) << "output " << i;
    const auto fin = torch::isfinite(b[i]);
    const double diff =
        (torch::where(fin, a[i], torch::zeros_like(a[i])) -
         torch::where(fin, b[i], torch::zeros_like(b[i])))
            .abs()
            .max()
            .item<double>();
    EXPECT_LE(diff, tol) << "forward output " << i;
  }
  projectOutputs(a, 7).backward();
  projectOutputs(b, 7).backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!a_in[i].defined() || !a_in[i].requires_grad()) continue;
    ASSERT_TRUE(a_in[i].grad().defined()) << "fused op gave no gradient for input " << i;
    ASSERT_TRUE(b_in[i].grad().defined()) << "reference gave no gradient for input " << i;
    const double diff = (a_in[i].grad() - b_in[i].grad()).abs().max().item<double>();
    EXPECT_LE(diff, tol) << "gradient of input " << i;
  }
}

void expectGradientsMatchFiniteDifferences(const RecurrenceOp& op,
                                           const std::vector<torch::Tensor>& inputs, int probes,
                                           double eps, double tol) {
  auto leaves = leavesOf(inputs);
  projectOutputs(op(leaves), 11).backward();
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].defined() || !leaves[i].requires_grad()) continue;
    const torch::Tensor grad = leaves[i].grad().reshape(-1);
    const int64_t n = leaves[i].numel();
    for (int p = 0; p < probes; ++p) {
      const int64_t idx = torch::randint(n, {1}, gen).item<int64_t>();
      auto shifted = [&](double delta) {
        std::vector<torch::Tensor> in;
        torch::NoGradGuard no_grad;
        for (size_t k = 0; k < leaves.size(); ++k) {
          if (k == i) {
            torch::Tensor t = leaves[k].detach().clone();
            t.view(-1)[idx] += delta;
            in.push_back(t);
          } else {
            in.push_back(leaves[k].defined() ? leaves[k].detach() : leaves[k]);
          }
        }
        return projectOutputs(op(in), 11).item<double>();
      };
      const double numeric = (shifted(eps) - shifted(-eps)) / (2 * eps);
      const double analytic = grad[idx].item<double>();
      EXPECT_NEAR(analytic, numeric, tol * (1.0 + std::abs(numeric)))
          << "input " << i << " element " << idx;
    }
  }
}

}  // namespace recurlab::testing
