#pragma once
// Shared by the CUDA kernel tests: skipping without a GPU, moving inputs to a device and
// comparing results: with the CPU kernels in double (to 1e-12), and in float, half and bfloat16
// with the naive references in double, each element within its rounding-error bound
// (tests/support/rounding_bound.h).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/required.h"
#include "tests/support/rounding_bound.h"

namespace recurlab::testing {

// Empty when CUDA kernel tests can run, else why not.
inline std::string cudaSkipReason() {
#ifndef RECURLAB_WITH_CUDA
  return "recurlab was built without its CUDA kernels (the LibTorch found by CMake has no "
         "CUDA; on a GPU machine run scripts/gpu-check.sh): CUDA kernel test not run";
#else
  if (!torch::cuda::is_available())
    return "no CUDA device visible (torch::cuda::is_available() is false): CUDA kernel test "
           "not run";
  return "";
#endif
}

#define RECURLAB_REQUIRE_CUDA()                                          \
  do {                                                                   \
    const std::string recurlab_skip_reason = ::recurlab::testing::cudaSkipReason(); \
    if (!recurlab_skip_reason.empty()) {                                 \
      ::recurlab::testing::announceSkip("no CUDA device", recurlab_skip_reason);      \
      GTEST_SKIP() << recurlab_skip_reason;                              \
    }                                                                    \
  } while (0)

// A leaf on `device` with `dtype` holding t's values (undefined stays undefined).
inline torch::Tensor leafOn(const torch::Tensor& t, torch::Device device, torch::Dtype dtype,
                            bool requires_grad) {
  if (!t.defined()) return t;
  return t.to(device, dtype).detach().requires_grad_(requires_grad);
}

// t rounded to `dtype` and back (what a half/bfloat16 kernel sees, in the original dtype).
inline torch::Tensor roundedThrough(const torch::Tensor& t, torch::Dtype dtype) {
  return t.defined() ? t.to(dtype).to(t.scalar_type()) : t;
}

// Every defined floating tensor of `tensors` rounded through `dtype` in place.
inline void roundFloatingThrough(std::vector<torch::Tensor>& tensors, torch::Dtype dtype) {
  for (auto& t : tensors)
    if (t.defined() && t.is_floating_point()) t = roundedThrough(t, dtype);
}

inline torch::Tensor cpuDouble(const torch::Tensor& t) {
  return t.defined() ? t.detach().to(torch::kCPU, torch::kDouble) : t;
}

// |got - want| <= atol + rtol·|want| everywhere; the message names the tensor and the worst
// element.
inline ::testing::AssertionResult allClose(const torch::Tensor& got_in,
                                           const torch::Tensor& want_in, double atol,
                                           double rtol, const std::string& what) {
  if (got_in.defined() != want_in.defined())
    return ::testing::AssertionFailure()
           << what << ": defined " << got_in.defined() << " vs " << want_in.defined();
  if (!got_in.defined()) return ::testing::AssertionSuccess();
  const torch::Tensor got = cpuDouble(got_in), want = cpuDouble(want_in);
  if (got.sizes() != want.sizes())
    return ::testing::AssertionFailure()
           << what << ": shape " << got.sizes() << " vs " << want.sizes();
  if (got.numel() == 0) return ::testing::AssertionSuccess();
  // Equal values (infinities included: max-plus states start at -inf) differ by 0.
  const torch::Tensor diff =
      torch::where(got == want, torch::zeros_like(got), (got - want).abs());
  const torch::Tensor excess = diff - (atol + rtol * want.abs());
  const int64_t worst = excess.view({-1}).argmax().item<int64_t>();
  if (excess.view({-1})[worst].item<double>() <= 0 && !got.isnan().any().item<bool>())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": element " << worst << " is " << got.view({-1})[worst].item<double>()
         << ", expected " << want.view({-1})[worst].item<double>() << " (atol " << atol
         << ", rtol " << rtol << "; max |diff| " << diff.max().item<double>()
         << ")";
}

// One differentiable run of a kernel on a device: the inputs (given on the CPU, any dtype;
// undefined ones stay undefined) are moved to `device`; floating ones are cast to `dtype` and,
// where `differentiable`, become leaves that require grad. Then
// backward(outputs, grad_outputs) runs, and outputs and input gradients come back as CPU
// float64 (undefined where the input is undefined or not differentiable).
struct KernelRun {
  std::vector<torch::Tensor> outputs, grads;
};

using RecurrenceFn =
    std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>;

inline KernelRun runKernel(
    const RecurrenceFn& kernel,
    const std::vector<torch::Tensor>& inputs, const std::vector<bool>& differentiable,
    const std::vector<torch::Tensor>& grad_outputs, torch::Device device, torch::Dtype dtype) {
  std::vector<torch::Tensor> on_device;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const torch::Tensor& t = inputs[i];
    if (!t.defined() || !t.is_floating_point()) {
      on_device.push_back(t.defined() ? t.to(device) : t);
    } else {
      on_device.push_back(leafOn(t, device, dtype, differentiable[i]));
    }
  }
  KernelRun run;
  const std::vector<torch::Tensor> outputs = kernel(on_device);
  std::vector<torch::Tensor> grads_on_device;
  for (const auto& g : grad_outputs) grads_on_device.push_back(g.to(device, dtype));
  torch::autograd::backward(outputs, grads_on_device);
  for (const auto& o : outputs) {
    EXPECT_EQ(o.device(), device);
    EXPECT_EQ(o.scalar_type(), dtype);
    run.outputs.push_back(cpuDouble(o));
  }
  for (size_t i = 0; i < on_device.size(); ++i)
    run.grads.push_back(differentiable[i] && on_device[i].defined()
                            ? cpuDouble(on_device[i].grad())
                            : torch::Tensor());
  return run;
}

// Every output and gradient of `got` within atol = rtol = tol of `want`.
inline void expectRunsClose(const KernelRun& got, const KernelRun& want, double tol,
                            const std::string& label) {
  for (size_t i = 0; i < want.outputs.size(); ++i)
    EXPECT_TRUE(allClose(got.outputs[i], want.outputs[i], tol, tol,
                         label + " output " + std::to_string(i)));
  for (size_t i = 0; i < want.grads.size(); ++i)
    EXPECT_TRUE(allClose(got.grads[i], want.grads[i], tol, tol,
                         label + " grad of input " + std::to_string(i)));
}

// Rounded operations one time step adds to the longest chain into any value of the recurrence
// kernels, forward or backward, rounded up. The longest, the rational recurrence's pattern F
// backward, has about 25: two gates (sigmoid or log-sigmoid: an exp within 2 ulp, an add, a
// divide or log1p) and their derivatives, the semiring products and sums of two states, tanh
// and its derivative.
constexpr int64_t kRoundingsPerStep = 32;

// How the kernels round, for the bounds of a run in `dtype` over sequences of length L and
// batch B: the arithmetic is float (double for double), the values are stored in `dtype`.
inline torch::Dtype arithmeticOf(torch::Dtype dtype) {
  return dtype == torch::kDouble ? torch::kDouble : torch::kFloat;
}
inline int64_t storedWhenNarrower(torch::Dtype dtype, int64_t roundings) {
  return dtype == torch::kHalf || dtype == torch::kBFloat16 ? roundings : 0;
}

// Forward outputs (h, the states, the last states): the state's chain grows by
// kRoundingsPerStep each step, L steps (the recurrence length's error growth, for a state
// carried by gates in (0, 1) that do not amplify it); stored once in `dtype`.
inline RoundingModel forwardRounding(torch::Dtype dtype, int64_t L) {
  return {arithmeticOf(dtype), kRoundingsPerStep * std::max<int64_t>(L, 1), dtype,
          storedWhenNarrower(dtype, 1)};
}

// Elementwise gradients (of u, x, c0): the forward's chain, then the backward's over the same
// L steps. In half/bfloat16 the backward re-reads the stored states (current and previous) at
// every step, and stores its result once.
inline RoundingModel gradientRounding(torch::Dtype dtype, int64_t L) {
  return {arithmeticOf(dtype), 2 * kRoundingsPerStep * std::max<int64_t>(L, 1), dtype,
          storedWhenNarrower(dtype, 2 * L + 1)};
}

// The bound of an elementwise output or gradient: the model times the largest exact value of
// the tensor and of what it was computed from (`sources`: the floating inputs for an output,
// the output gradients for a gradient; see largestMagnitude).
inline std::vector<ErrorSource> elementwiseBound(const RoundingModel& model,
                                                 const torch::Tensor& exact,
                                                 std::vector<torch::Tensor> sources) {
  sources.push_back(exact);
  return {{model, largestMagnitude(sources)}};
}

// A parameter given per step and batch row (L, B, size) to a naive reference
// (tests/support/naive_recurrences.h): a leaf with the parameter's values in every row.
inline torch::Tensor perStepCopies(const torch::Tensor& param, int64_t L, int64_t B) {
  return param.defined() ? param.expand({L, B, param.size(0)}).contiguous() : param;
}

// The scale of each step's parameter-gradient terms (L, B), whatever cancellation makes of a
// term's own value: the largest exact gradient, at that step, of the time-major inputs (u, x:
// the pre-activations whose gradients the terms are, times a gate or a state of order one).
// Inside a term such as g·(c_t - x_t) the rounding of c_t costs u·|g|·|c_t|, however small the
// difference; with few terms per step (one unit) the step's largest term does not show it.
inline torch::Tensor termScale(const std::vector<torch::Tensor>& step_grads) {
  torch::Tensor scale;
  for (const torch::Tensor& g : step_grads) {
    if (!g.defined() || g.dim() != 3 || g.size(2) == 0) continue;
    const torch::Tensor rows = std::get<0>(g.detach().to(torch::kDouble).abs().max(2));
    scale = scale.defined() ? torch::maximum(scale, rows) : rows;
  }
  return scale;
}

// A parameter gradient in `dtype` from the exact per-step terms (L, B, size) of a naive
// reference: their sum, and the bound of a sum of L·B terms, from two sources:
// - the summation, over time per column, then over the batch (both kernels; the CPU kernel in
//   double): depth L + B - 2 times sum |term| of the element (Higham 2002, §4.2), stored once
//   in `dtype`;
// - each term's own rounding, kRoundingsPerStep (a product of a few rounded values; two stored
//   states read in half/bfloat16), times the scale of its step's terms (the largest term of the
//   step, or `term_scale` (L, B) where larger: see termScale), summed over the L·B steps.
struct ParameterGradient {
  torch::Tensor exact;
  std::vector<ErrorSource> bound;
};
inline ParameterGradient fromPerStepTerms(const torch::Tensor& terms, torch::Dtype dtype,
                                          const torch::Tensor& term_scale) {
  if (!terms.defined()) return {};
  const int64_t L = terms.size(0), B = terms.size(1);
  const std::vector<int64_t> steps_and_rows = {0, 1};
  const torch::Tensor magnitudes = terms.abs();
  torch::Tensor per_step = std::get<0>(magnitudes.max(2));
  if (term_scale.defined()) per_step = torch::maximum(per_step, term_scale.to(torch::kDouble));
  const RoundingModel summation{arithmeticOf(dtype), std::max<int64_t>(L + B - 2, 0), dtype,
                                storedWhenNarrower(dtype, 1)};
  const RoundingModel each_term{arithmeticOf(dtype), kRoundingsPerStep, dtype,
                                storedWhenNarrower(dtype, 2)};
  return {terms.sum(steps_and_rows),
          {{summation, magnitudes.sum(steps_and_rows)}, {each_term, per_step.sum()}}};
}

// One tensor of a run against the exact (double) reference, elementwise within its bound.
inline void expectWithinBound(const torch::Tensor& got, const torch::Tensor& exact,
                              const std::vector<ErrorSource>& bound, const std::string& what) {
  if (!got.defined() && !exact.defined()) return;
  EXPECT_TRUE(withinRoundingBound(got, exact, bound, what));
}
inline void expectWithinBound(const torch::Tensor& got, const torch::Tensor& exact,
                              const RoundingModel& model,
                              const std::vector<torch::Tensor>& sources,
                              const std::string& what) {
  if (!got.defined() && !exact.defined()) return;
  expectWithinBound(got, exact,
                    exact.defined() ? elementwiseBound(model, exact, sources)
                                    : std::vector<ErrorSource>{},
                    what);
}

// Runs `kernel` on `device` in `dtype`, and the naive `reference` in double on the CPU, both on
// the inputs and output gradients rounded through `dtype` (what the kernel sees, so the
// reference computes exactly, to double rounding, what the kernel approximates), and expects
// every output within forwardRounding and every gradient within gradientRounding of the exact
// value (elementwiseBound). The inputs listed in `parameters` reach the reference per step and
// batch row (perStepCopies), so that their gradients come as terms, bounded by
// fromPerStepTerms.
inline void expectKernelWithinRoundingBounds(
    const RecurrenceFn& kernel, const RecurrenceFn& reference, std::vector<torch::Tensor> inputs,
    const std::vector<bool>& differentiable, std::vector<torch::Tensor> grad_outputs,
    const std::vector<size_t>& parameters, torch::Device device, torch::Dtype dtype, int64_t L,
    int64_t B, const std::string& label) {
  roundFloatingThrough(inputs, dtype);
  roundFloatingThrough(grad_outputs, dtype);
  const KernelRun got = runKernel(kernel, inputs, differentiable, grad_outputs, device, dtype);
  std::vector<torch::Tensor> per_step = inputs;
  for (size_t i : parameters) per_step[i] = perStepCopies(inputs[i], L, B);
  const KernelRun exact = runKernel(reference, per_step, differentiable, grad_outputs,
                                    torch::Device(torch::kCPU), torch::kDouble);
  std::vector<torch::Tensor> differentiable_inputs;  // not masks: they scale, not add
  for (size_t i = 0; i < inputs.size(); ++i)
    if (differentiable[i]) differentiable_inputs.push_back(inputs[i]);
  std::vector<torch::Tensor> step_grads;  // of the time-major inputs (not the parameters)
  for (size_t i = 0; i < exact.grads.size(); ++i)
    if (std::find(parameters.begin(), parameters.end(), i) == parameters.end())
      step_grads.push_back(exact.grads[i]);
  const torch::Tensor term_scale = termScale(step_grads);
  const std::string prefix = label + " " + c10::toString(dtype);
  for (size_t i = 0; i < exact.outputs.size(); ++i)
    expectWithinBound(got.outputs[i], exact.outputs[i], forwardRounding(dtype, L),
                      differentiable_inputs, prefix + " output " + std::to_string(i));
  for (size_t i = 0; i < exact.grads.size(); ++i) {
    const std::string what = prefix + " grad of input " + std::to_string(i);
    const bool is_parameter =
        std::find(parameters.begin(), parameters.end(), i) != parameters.end();
    if (is_parameter && exact.grads[i].defined()) {
      const ParameterGradient g = fromPerStepTerms(exact.grads[i], dtype, term_scale);
      expectWithinBound(got.grads[i], g.exact, g.bound, what);
    } else {
      expectWithinBound(got.grads[i], exact.grads[i], gradientRounding(dtype, L), grad_outputs,
                        what);
    }
  }
}

// Right padding with a random length per sequence (the first one full), plus one pad inside
// the last sequence when it is long enough.
inline torch::Tensor randomPadMask(int64_t L, int64_t B) {
  torch::Tensor mask = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 1; b < B; ++b) {
    const int64_t len = torch::randint(1, L + 1, {1}).item<int64_t>();
    mask.slice(0, len, L).select(1, b).fill_(true);
  }
  if (B > 1 && L > 3) mask[L / 2][B - 1] = true;
  return mask;
}

}  // namespace recurlab::testing
