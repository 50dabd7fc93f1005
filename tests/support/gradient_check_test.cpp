// The finite-difference check itself: it must fail on a wrong, NaN or infinite gradient, since
// the layers checked only this way (IsanLayer, the SRU layer with layer norm and projection,
// the QA reader layers) rely on it.
#include "tests/support/gradient_check.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace recurlab::testing {
namespace {

torch::Tensor leaf() {
  return torch::tensor({0.3, -1.2, 2.0}, torch::kFloat64).requires_grad_(true);
}

TEST(GradientCheck, PassesACorrectGradient) {
  const auto x = leaf();
  const auto r = checkGradients([&] { return (x * x * x).sum(); }, {x}, {"x"});
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_LT(r.worst_abs_error, 1e-6);
}

TEST(GradientCheck, FailsAWrongGradient) {
  const auto x = leaf();
  // Forward x³, backward 3x² + 1 (a custom function with a wrong derivative).
  struct WrongCube : torch::autograd::Function<WrongCube> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor t) {
      ctx->save_for_backward({t});
      return t * t * t;
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::tensor_list g) {
      const auto t = ctx->get_saved_variables()[0];
      return {g[0] * (3 * t * t + 1)};
    }
  };
  const auto r = checkGradients([&] { return WrongCube::apply(x).sum(); }, {x}, {"x"});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.report.find("x[0]"), std::string::npos) << r.report;
}

TEST(GradientCheck, FailsANanGradient) {
  const auto x = leaf();
  // sqrt(x² - x²) is 0 everywhere (numeric gradient 0); autograd gives inf · 0 = NaN.
  const auto r = checkGradients([&] { return (x * x - x * x).sqrt().sum(); }, {x}, {"x"});
  EXPECT_FALSE(r.ok) << "a NaN gradient passed";
  EXPECT_TRUE(std::isinf(r.worst_abs_error));
}

TEST(GradientCheck, FailsAnInfiniteGradient) {
  const auto x = torch::tensor({0.0, 1.0}, torch::kFloat64).requires_grad_(true);
  struct InfiniteSlope : torch::autograd::Function<InfiniteSlope> {
    static torch::Tensor forward(torch::autograd::AutogradContext*, torch::Tensor t) {
      return t.clone();
    }
    static torch::autograd::tensor_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::tensor_list g) {
      return {g[0] * INFINITY};
    }
  };
  const auto r = checkGradients([&] { return InfiniteSlope::apply(x).sum(); }, {x}, {"x"});
  EXPECT_FALSE(r.ok) << "an infinite gradient passed";
}

}  // namespace
}  // namespace recurlab::testing
