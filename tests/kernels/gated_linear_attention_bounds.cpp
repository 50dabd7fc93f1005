#include "tests/kernels/gated_linear_attention_bounds.h"

#include <algorithm>
#include <cmath>

#include "tests/support/naive_recurrences.h"
#include "tests/support/rounding_bound.h"

namespace recurlab::testing::gla {

using kernels::gatedLinearAttention;
using kernels::GatedLinearAttentionOptions;
using kernels::gatedLinearAttentionReference;
using kernels::kGlaStepByStep;
using torch::Tensor;

Data makeData(const Case& c, uint64_t seed) {
  torch::manual_seed(seed);
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  const auto f64 = [](const Tensor& t) { return t.to(torch::kDouble); };
  Data data;
  const std::vector<int64_t> keys = {c.L, c.B, c.H, c.dk}, values = {c.L, c.B, c.H, c.dv};
  data.inputs = {f64(torch::randn(keys, f32)), f64(torch::randn(keys, f32)),
                 f64(torch::randn(values, f32)),
                 f64(torch::log_sigmoid(torch::randn(keys, f32) * 2 + 1)),
                 c.s0 ? f64(torch::randn({c.B, c.H, c.dk, c.dv}, f32)) : Tensor(),
                 c.pad ? recurlab::testing::randomPadMask(c.L, c.B) : Tensor()};
  data.grad_outputs = {f64(torch::randn(values, f32)),
                       f64(torch::randn({c.B, c.H, c.dk, c.dv}, f32))};
  return data;
}

const std::vector<bool> kDifferentiable = {true, true, true, true, true, false};

KernelRun runOp(const Data& data, torch::Device device, torch::Dtype dtype,
                const GatedLinearAttentionOptions& options) {
  return runKernel(
      [&](const std::vector<Tensor>& in) {
        return gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], in[5], options);
      },
      data.inputs, kDifferentiable, data.grad_outputs, device, dtype);
}

KernelRun runReference(const Data& data) {
  return runKernel(
      [&](const std::vector<Tensor>& in) {
        return gatedLinearAttentionReference(in[0], in[1], in[2], in[3], in[4], in[5]);
      },
      data.inputs, kDifferentiable, data.grad_outputs, torch::Device(torch::kCPU), torch::kDouble);
}

namespace {

// M for the gradient of log α in the chunked forms, which the run on absolute values understates:
// a decay e^{G_i - G_j} enters the chunk's backward at both ends, +term at i and -term at j, and
// the reverse cumulative sum that makes the gradient of g_t cancels the pairs with t <= j <= i
// exactly, but not their roundings. So M(t) = Σ_{i >= t} (P_i + N_i), P_i (N_j) the absolute
// terms whose decay ends (starts) at step i (j): the naive O(L²) form on absolute values with
// the upper and lower ends as two leaves, so that autograd keeps them apart.
Tensor logAlphaGradientMagnitude(const Data& data) {
  const auto& in = data.inputs;
  const int64_t L = in[0].size(0);
  Tensor real = torch::ones({L, in[0].size(1), 1, 1}, in[0].options());
  if (in[5].defined()) real = (~in[5].to(torch::kBool)).to(in[0].dtype()).view_as(real);
  const Tensor q = in[0].abs(), k = in[1].abs() * real, v = in[2].abs();
  const Tensor upper = (in[3] * real).cumsum(0).set_requires_grad(true);
  const Tensor lower = upper.detach().clone().set_requires_grad(true);
  // decay[i, j] = e^{upper_i - lower_j} for j <= i, else 0: (L, L, B, H, d_k).
  const Tensor causal = torch::ones({L, L}, torch::kBool).tril().view({L, L, 1, 1, 1});
  const Tensor exponent = upper.unsqueeze(1) - lower.unsqueeze(0);
  const Tensor decay = torch::where(causal, exponent, torch::full_like(exponent, -INFINITY)).exp();
  Tensor o = torch::einsum("ibhc,ijbhc,jbhc,jbhv->ibhv", {q, decay, k, v});
  Tensor last = torch::einsum("jbhc,jbhc,jbhv->bhcv", {decay[L - 1], k, v});
  if (in[4].defined()) {
    o = o + torch::einsum("ibhc,bhcv->ibhv", {q * upper.exp(), in[4].abs()});
    last = last + upper[L - 1].exp().unsqueeze(3) * in[4].abs();
  }
  const Tensor loss = (o * data.grad_outputs[0].abs() * real).sum() +
                      (last * data.grad_outputs[1].abs()).sum();
  const std::vector<Tensor> ends = torch::autograd::grad({loss}, {upper, lower});
  const Tensor per_step = ends[0].abs() + ends[1].abs();
  return per_step.flip(0).cumsum(0).flip(0);  // Σ_{i >= t}
}

}  // namespace

KernelRun runMagnitudes(const Data& data) {
  Data abs = data;
  for (size_t i : {0, 1, 2, 4})
    if (abs.inputs[i].defined()) abs.inputs[i] = abs.inputs[i].abs();
  for (auto& t : abs.grad_outputs) t = t.abs();
  KernelRun magnitude = runReference(abs);
  magnitude.grads[3] = torch::maximum(magnitude.grads[3], logAlphaGradientMagnitude(data));
  return magnitude;
}

int64_t outputRoundings(const Case& c, const Data& data, int64_t chunk_length) {
  const int64_t C = chunk_length == kGlaStepByStep ? c.L : std::min(chunk_length, c.L);
  Tensor g = data.inputs[3];
  if (data.inputs[5].defined())
    g = g.masked_fill(data.inputs[5].to(torch::kBool).view({c.L, c.B, 1, 1}), 0);
  const double lambda = g.neg().sum(0).max().item<double>();
  return (3 * C + 2) * static_cast<int64_t>(std::ceil(lambda)) + 5 * c.L + std::max(c.dk, c.dv) +
         25;
}

void expectWithinBounds(const KernelRun& got, const KernelRun& exact, const KernelRun& magnitude,
                        int64_t roundings, const std::string& label, int results) {
  const RoundingModel forward{torch::kFloat, roundings};
  const RoundingModel backward{torch::kFloat, 2 * roundings + 1};
  testing::expectEachWithinRoundingBound(got.outputs, exact.outputs, magnitude.outputs, forward,
                                         {"o", "last state"}, label, results);
  testing::expectEachWithinRoundingBound(
      got.grads, exact.grads, magnitude.grads, backward,
      {"grad q", "grad k", "grad v", "grad log_alpha", "grad s0", "grad mask_pad"}, label,
      results);
}

std::vector<Case> everyOption(int64_t L, int64_t B, int64_t H, int64_t dk, int64_t dv) {
  std::vector<Case> cases;
  for (int flags = 0; flags < 4; ++flags)
    cases.push_back({L, B, H, dk, dv, (flags & 1) != 0, (flags & 2) != 0});
  return cases;
}

}  // namespace recurlab::testing::gla
