// Gehring et al. (2017), App. A, on a small gated-conv stack. Derived per-block factor: 1 for
// N(0, sqrt(4p/n)), 1/(4p) for the naive N(0, sqrt(1/n)). Tolerances: the weights are one
// draw; each block's variance factor is the mean of c_out squared row norms of n = k·c_in
// Gaussian weights, relative standard deviation sqrt(2/(n·c_out)), so the stack's
// sqrt(layers) times that, allowed 4 times. The linearisation σ(y) ≈ 1/2 + y/4 drops terms of
// relative size Var[y]/4 = Var[x] (forward) and 2·Var[x] (backward, the σ' branch) per block,
// i.e. up to (1 + 2·Var[x])^layers above the derived value.
#include "tasks/variance/glu_variance_study.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace recurlab::experiments {
namespace {

GluVarianceOptions smallStack() {
  GluVarianceOptions o;
  o.layers = 6;
  o.channels = 128;
  o.width = 3;
  o.length = 32;
  o.batch = 16;
  o.input_std = 0.1;
  return o;
}

void expectWithinDerived(double measured, double derived, const GluVarianceOptions& o,
                         const std::string& what) {
  const double n = static_cast<double>(o.width * o.channels);
  const double sampling = 4.0 * std::sqrt(o.layers * 2.0 / (n * o.channels));
  const double bias = std::pow(1.0 + 2.0 * o.input_std * o.input_std, o.layers) - 1.0;
  EXPECT_GE(measured / derived, 1.0 - sampling) << what;
  EXPECT_LE(measured / derived, 1.0 + bias + sampling) << what;
}

TEST(GluVarianceStudyTest, DropoutAwareInitKeepsVarianceWithAndWithoutDropout) {
  const auto o = smallStack();
  for (double p : {1.0, 0.8}) {
    const auto v = measureGluVariance(o, models::GluInit::DropoutAware, p, 1);
    ASSERT_EQ(v.size(), static_cast<size_t>(o.layers + 1));
    expectWithinDerived(v.back().act_ratio, 1.0, o, "forward, p=" + std::to_string(p));
    expectWithinDerived(v.front().grad_ratio, 1.0, o, "backward, p=" + std::to_string(p));
  }
}

TEST(GluVarianceStudyTest, NaiveInitShrinksByOneOverFourPPerBlock) {
  const auto o = smallStack();
  for (double p : {1.0, 0.8}) {
    const auto v = measureGluVariance(o, models::GluInit::Naive, p, 1);
    const double derived = std::pow(1.0 / (4.0 * p), o.layers);
    EXPECT_NEAR(v.back().derived_act_ratio, derived, 1e-12);
    expectWithinDerived(v.back().act_ratio, derived, o, "forward, p=" + std::to_string(p));
    expectWithinDerived(v.front().grad_ratio, derived, o, "backward, p=" + std::to_string(p));
    EXPECT_LT(v.back().act_ratio, 0.01);
  }
}

TEST(GluVarianceStudyTest, ResidualFactorIsTheMeanOfBranchAndSkip) {
  EXPECT_DOUBLE_EQ(gluDerivedFactor(models::GluInit::Naive, 1.0, true), 0.625);
  EXPECT_DOUBLE_EQ(gluDerivedFactor(models::GluInit::DropoutAware, 0.5, true), 1.0);
}

}  // namespace
}  // namespace recurlab::experiments
