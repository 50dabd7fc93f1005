#pragma once
// Shared by the CUDA kernel tests: skipping without a GPU, moving inputs to a device and
// comparing results computed on different devices and in different precisions.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

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
    if (!recurlab_skip_reason.empty()) GTEST_SKIP() << recurlab_skip_reason;        \
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

// ‖got - want‖₂ <= tol·‖want‖₂: for reduced precision, whose error scales with the values.
inline ::testing::AssertionResult closeInNorm(const torch::Tensor& got_in,
                                              const torch::Tensor& want_in, double tol,
                                              const std::string& what) {
  if (got_in.defined() != want_in.defined())
    return ::testing::AssertionFailure()
           << what << ": defined " << got_in.defined() << " vs " << want_in.defined();
  if (!got_in.defined()) return ::testing::AssertionSuccess();
  const torch::Tensor got = cpuDouble(got_in), want = cpuDouble(want_in);
  const torch::Tensor finite = want.isfinite();
  const torch::Tensor diff = torch::where(got == want, torch::zeros_like(got), got - want);
  const double err = diff.norm().item<double>();
  const double scale = torch::where(finite, want, torch::zeros_like(want)).norm().item<double>();
  if (std::isfinite(err) && err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": relative error " << err / scale
                                       << " > " << tol << " (norm of expected " << scale << ")";
}

// One differentiable run of a kernel on a device: the inputs (given on the CPU, any dtype;
// undefined ones stay undefined) are moved to `device`; floating ones are cast to `dtype` and,
// where `differentiable`, become leaves that require grad. Then
// backward(outputs, grad_outputs) runs, and outputs and input gradients come back as CPU
// float64 (undefined where the input is undefined or not differentiable).
struct KernelRun {
  std::vector<torch::Tensor> outputs, grads;
};

inline KernelRun runKernel(
    const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& kernel,
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

// The same in relative 2-norm (reduced precision).
inline void expectRunsCloseInNorm(const KernelRun& got, const KernelRun& want, double tol,
                                  const std::string& label) {
  for (size_t i = 0; i < want.outputs.size(); ++i)
    EXPECT_TRUE(closeInNorm(got.outputs[i], want.outputs[i], tol,
                            label + " output " + std::to_string(i)));
  for (size_t i = 0; i < want.grads.size(); ++i)
    EXPECT_TRUE(closeInNorm(got.grads[i], want.grads[i], tol,
                            label + " grad of input " + std::to_string(i)));
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
