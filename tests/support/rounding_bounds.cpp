#include "tests/support/rounding_bounds.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace recurlab::testing {

double unitRoundoff(at::ScalarType type) {
  switch (type) {
    case at::kDouble: return std::ldexp(1.0, -53);
    case at::kFloat: return std::ldexp(1.0, -24);
    case at::kHalf: return std::ldexp(1.0, -11);
    case at::kBFloat16: return std::ldexp(1.0, -8);
    default: break;
  }
  ADD_FAILURE() << "unitRoundoff: no floating-point type " << type;
  return std::numeric_limits<double>::infinity();
}

double roundingGrowth(int64_t roundings, at::ScalarType type) {
  const double nu = static_cast<double>(roundings) * unitRoundoff(type);
  if (nu >= 1) {
    ADD_FAILURE() << roundings << " roundings in " << type << ": n·u = " << nu
                  << " >= 1, no bound";
    return std::numeric_limits<double>::infinity();
  }
  return nu / (1 - nu);
}

::testing::AssertionResult withinRoundingBound(const at::Tensor& got_in, const at::Tensor& want_in,
                                               const at::Tensor& magnitude_in, double growth,
                                               const std::string& what) {
  if (got_in.defined() != want_in.defined())
    return ::testing::AssertionFailure() << what << ": defined " << got_in.defined() << " vs "
                                         << want_in.defined();
  if (!got_in.defined()) return ::testing::AssertionSuccess();
  const at::Tensor got = got_in.detach().to(torch::kCPU, torch::kDouble);
  const at::Tensor want = want_in.detach().to(torch::kCPU, torch::kDouble);
  const at::Tensor magnitude = magnitude_in.detach().to(torch::kCPU, torch::kDouble);
  if (got.sizes() != want.sizes() || want.sizes() != magnitude.sizes())
    return ::testing::AssertionFailure() << what << ": shapes " << got.sizes() << ", "
                                         << want.sizes() << ", magnitude " << magnitude.sizes();
  if (got.numel() == 0) return ::testing::AssertionSuccess();
  if (!torch::isfinite(got).all().item<bool>())
    return ::testing::AssertionFailure() << what << ": not finite";
  const at::Tensor error = (got - want).abs().reshape({-1});
  const at::Tensor bound = (growth * magnitude).reshape({-1});
  const at::Tensor excess = error - bound;
  const int64_t worst = excess.argmax().item<int64_t>();
  if (excess[worst].item<double>() <= 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": element " << worst << " is " << got.reshape({-1})[worst].item<double>()
         << ", exact " << want.reshape({-1})[worst].item<double>() << ": error "
         << error[worst].item<double>() << " > bound " << bound[worst].item<double>() << " ("
         << error[worst].item<double>() / bound[worst].item<double>() << "x)";
}

}  // namespace recurlab::testing
