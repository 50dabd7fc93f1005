#pragma once
// Finite-difference gradient checks for tests (LibTorch's C++ API has no gradcheck).
#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

namespace recurlab::testing {

struct GradientCheckResult {
  bool ok = true;
  double worst_abs_error = 0.0;
  std::string report;  // names the tensor and element that failed
};

// `loss` must return a scalar double tensor computed from `inputs` (all float64, requires_grad).
// Compares autograd gradients with central differences on up to `samples` elements of each
// input (chosen deterministically), with |numeric - analytic| <= atol + rtol·|numeric|; a
// non-finite gradient on either side fails.
GradientCheckResult checkGradients(const std::function<at::Tensor()>& loss,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<std::string>& names, int64_t samples = 24,
                                   double eps = 1e-6, double atol = 1e-7, double rtol = 1e-5);

// Expects `fn` to throw a std::exception whose message contains `fragment`.
bool throwsWith(const std::function<void()>& fn, const std::string& fragment,
                std::string* message = nullptr);

}  // namespace recurlab::testing
