#include "tests/support/gradient_check.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>

namespace recurlab::testing {

GradientCheckResult checkGradients(const std::function<at::Tensor()>& loss,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<std::string>& names, int64_t samples,
                                   double eps, double atol, double rtol) {
  GradientCheckResult result;
  for (const auto& t : inputs)
    if (t.grad().defined()) t.mutable_grad().zero_();
  loss().backward();
  std::vector<torch::Tensor> analytic;
  for (const auto& t : inputs)
    analytic.push_back(t.grad().defined() ? t.grad().clone() : torch::zeros_like(t));
  torch::NoGradGuard no_grad;
  std::ostringstream report;
  for (size_t i = 0; i < inputs.size(); ++i) {
    torch::Tensor flat = inputs[i].view({-1});
    const int64_t n = flat.numel();
    const int64_t count = std::min(samples, n);
    for (int64_t s = 0; s < count; ++s) {
      const int64_t idx = count == n ? s : (s * 7919) % n;  // spread deterministically
      const double orig = flat[idx].item<double>();
      flat[idx] = orig + eps;
      const double up = loss().item<double>();
      flat[idx] = orig - eps;
      const double down = loss().item<double>();
      flat[idx] = orig;
      const double numeric = (up - down) / (2 * eps);
      const double got = analytic[i].view({-1})[idx].item<double>();
      const double err = std::abs(numeric - got);
      // Written so that a NaN or infinite gradient (or loss) fails: NaN compares false.
      const bool close = std::isfinite(numeric) && std::isfinite(got) &&
                         err <= atol + rtol * std::abs(numeric);
      result.worst_abs_error =
          std::isfinite(err) ? std::max(result.worst_abs_error, err) : INFINITY;
      if (!close) {
        result.ok = false;
        report << names[i] << "[" << idx << "]: numeric " << numeric << " vs autograd " << got
               << "\n";
      }
    }
  }
  result.report = report.str();
  return result;
}

bool throwsWith(const std::function<void()>& fn, const std::string& fragment,
                std::string* message) {
  try {
    fn();
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (message) *message = what;
    return what.find(fragment) != std::string::npos;
  } catch (const std::exception& e) {
    if (message) *message = e.what();
    return std::string(e.what()).find(fragment) != std::string::npos;
  }
  if (message) *message = "(nothing thrown)";
  return false;
}

}  // namespace recurlab::testing
