#include "tests/support/recurrence_check.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/gradient_check.h"

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
    // Equal infinities (max-plus semiring zero) compare equal; NaN never does, and an
    // infinity must have the reference's sign (NaN or +inf where it has -inf fails).
    const auto fin = torch::isfinite(b[i]);
    EXPECT_TRUE(torch::equal(torch::isfinite(a[i]), fin)) << "output " << i;
    EXPECT_FALSE(torch::isnan(a[i]).any().item<bool>()) << "output " << i << " has NaN";
    EXPECT_FALSE(torch::isnan(b[i]).any().item<bool>()) << "reference output " << i << " has NaN";
    const auto infinite = torch::logical_not(fin);
    EXPECT_TRUE(torch::equal(a[i].masked_select(infinite), b[i].masked_select(infinite)))
        << "output " << i << ": infinities differ from the reference's";
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
    EXPECT_TRUE(torch::isfinite(a_in[i].grad()).all().item<bool>())
        << "fused op's gradient of input " << i << " is not finite";
    const double diff = (a_in[i].grad() - b_in[i].grad()).abs().max().item<double>();
    EXPECT_LE(diff, tol) << "gradient of input " << i;
  }
}

void expectEqualRoundedThrough(const std::vector<torch::Tensor>& got,
                               const std::vector<torch::Tensor>& wider, torch::Dtype dtype,
                               const std::string& label) {
  for (size_t i = 0; i < wider.size(); ++i) {
    if (!got[i].defined() && !wider[i].defined()) continue;
    ASSERT_EQ(got[i].defined(), wider[i].defined()) << label << " " << i;
    EXPECT_TRUE(torch::equal(got[i], wider[i].to(dtype).to(wider[i].scalar_type())))
        << label << " " << i;
  }
}

void expectSameOutputsAndGradients(const std::vector<Named>& got,
                                   const std::vector<torch::Tensor>& want,
                                   const std::vector<Named>& leaves, double tol) {
  ASSERT_EQ(got.size(), want.size());
  std::vector<torch::Tensor> got_outputs, leaf_tensors;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& [name, tensor] = got[i];
    ASSERT_EQ(tensor.sizes(), want[i].sizes()) << name;
    EXPECT_LT((tensor - want[i]).abs().max().item<double>(), tol) << name;
    got_outputs.push_back(tensor);
  }
  for (const auto& leaf : leaves) leaf_tensors.push_back(leaf.second);
  const auto got_grads = torch::autograd::grad({projectOutputs(got_outputs, 5)}, leaf_tensors);
  const auto want_grads = torch::autograd::grad({projectOutputs(want, 5)}, leaf_tensors);
  for (size_t i = 0; i < leaves.size(); ++i)
    EXPECT_LT((got_grads[i] - want_grads[i]).abs().max().item<double>(), tol)
        << "gradient of " << leaves[i].first;
}

void expectGradientsMatchFiniteDifferences(const RecurrenceOp& op,
                                           const std::vector<torch::Tensor>& inputs, int probes,
                                           double eps, double tol) {
  const auto leaves = leavesOf(inputs);
  std::vector<torch::Tensor> differentiable;
  std::vector<std::string> names;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].defined() || !leaves[i].requires_grad()) continue;
    differentiable.push_back(leaves[i]);
    names.push_back("input " + std::to_string(i));
  }
  const GradientCheckResult res = checkGradients(
      [&] { return projectOutputs(op(leaves), 11); }, differentiable, names, probes, eps, tol, tol);
  EXPECT_TRUE(res.ok) << res.report;
}

}  // namespace recurlab::testing
