#pragma once
// Shared by the CUDA kernel tests: skipping without a GPU, moving inputs to a device and
// comparing results computed on different devices and in different precisions.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <sstream>
#include <string>

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
  const torch::Tensor excess = (got - want).abs() - (atol + rtol * want.abs());
  const int64_t worst = excess.view({-1}).argmax().item<int64_t>();
  if (excess.view({-1})[worst].item<double>() <= 0 && !got.isnan().any().item<bool>())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": element " << worst << " is " << got.view({-1})[worst].item<double>()
         << ", expected " << want.view({-1})[worst].item<double>() << " (atol " << atol
         << ", rtol " << rtol << "; max |diff| " << (got - want).abs().max().item<double>()
         << ")";
}

// ‖got - want‖₂ <= tol·‖want‖₂: for reduced precision, whose error is relative to the scale.
inline ::testing::AssertionResult closeInNorm(const torch::Tensor& got_in,
                                              const torch::Tensor& want_in, double tol,
                                              const std::string& what) {
  if (got_in.defined() != want_in.defined())
    return ::testing::AssertionFailure()
           << what << ": defined " << got_in.defined() << " vs " << want_in.defined();
  if (!got_in.defined()) return ::testing::AssertionSuccess();
  const torch::Tensor got = cpuDouble(got_in), want = cpuDouble(want_in);
  const double err = (got - want).norm().item<double>();
  const double scale = want.norm().item<double>();
  if (std::isfinite(err) && err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": relative error " << err / scale
                                       << " > " << tol << " (norm of expected " << scale << ")";
}

}  // namespace recurlab::testing
