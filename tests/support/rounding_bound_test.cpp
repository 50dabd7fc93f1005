// The rounding-error bound itself: gamma_n, a float sum within gamma_{n-1}·sum|x| of the
// exact one and a corrupted element outside it, storage rounding, NaN, and a message that
// names the tensor, the element, its value, the reference and the bound.
#include "tests/support/rounding_bound.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <string>

namespace recurlab::testing {
namespace {

TEST(RoundingBoundTest, GammaIsNuOverOneMinusNu) {
  const double u = unitRoundoff(torch::kFloat);
  EXPECT_EQ(u, std::ldexp(1.0, -24));
  EXPECT_EQ(unitRoundoff(torch::kDouble), std::ldexp(1.0, -53));
  EXPECT_EQ(unitRoundoff(torch::kHalf), std::ldexp(1.0, -11));
  EXPECT_EQ(unitRoundoff(torch::kBFloat16), std::ldexp(1.0, -8));
  EXPECT_DOUBLE_EQ(gammaBound(1000, u), 1000 * u / (1 - 1000 * u));
  EXPECT_EQ(gammaBound(0, u), 0.0);
  EXPECT_EQ(gammaBound(256, unitRoundoff(torch::kBFloat16)),
            std::numeric_limits<double>::infinity());
}

// Sums of n float terms, each summed left to right in float: within gamma_{n-1}·sum|x| of the
// double sum (Higham 2002, §4.2). One sum off by a little more than its bound fails, and the
// message names it.
TEST(RoundingBoundTest, FloatSumsWithinBoundAndCorruptedOneOutside) {
  torch::manual_seed(3);
  const int64_t n = 4096, sums = 8;
  const torch::Tensor x = torch::randn({sums, n}, torch::kDouble).to(torch::kFloat);
  torch::Tensor got = torch::empty({sums}, torch::kFloat);
  for (int64_t s = 0; s < sums; ++s) {
    float acc = 0.0f;
    for (int64_t i = 0; i < n; ++i) acc += x[s][i].item<float>();
    got[s] = acc;
  }
  const torch::Tensor exact = x.to(torch::kDouble).sum(1);
  const RoundingModel recursive_sum{torch::kFloat, n - 1, torch::kFloat, 0};
  const std::vector<ErrorSource> bound = {{recursive_sum, x.to(torch::kDouble).abs().sum(1)}};
  EXPECT_TRUE(withinRoundingBound(got, exact, bound, "sums"));

  const double bound5 = gammaBound(n - 1, unitRoundoff(torch::kFloat)) *
                        x[5].to(torch::kDouble).abs().sum().item<double>();
  torch::Tensor bad = got.clone();
  bad[5] = exact[5].item<double>() + 2 * bound5;
  const RoundingCheck check = checkRoundingBound(bad, exact, bound, "sums");
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.outside, 1);
  EXPECT_EQ(check.worst_index, std::vector<int64_t>{5});
  EXPECT_NE(check.message.find("sums: 1 of 8 elements"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("worst element [5]"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("reference"), std::string::npos) << check.message;
  EXPECT_NE(check.message.find("bound"), std::string::npos) << check.message;
}

// A value stored in bfloat16 is within one storage rounding, not within float's.
TEST(RoundingBoundTest, StorageRoundingCounts) {
  const torch::Tensor exact = torch::tensor({1.0 / 3.0, -2.0 / 7.0, 5.0}, torch::kDouble);
  const torch::Tensor stored = exact.to(torch::kBFloat16);
  const torch::Tensor magnitude = exact.abs();
  const RoundingModel with_storage{torch::kFloat, 4, torch::kBFloat16, 1};
  const RoundingModel float_only{torch::kFloat, 4, torch::kFloat, 0};
  EXPECT_TRUE(withinRoundingBound(stored, exact, {{with_storage, magnitude}}, "bf16"));
  EXPECT_FALSE(withinRoundingBound(stored, exact, {{float_only, magnitude}}, "f32"));
}

TEST(RoundingBoundTest, NanFailsEqualInfinitiesPassShapesMustMatch) {
  const double inf = std::numeric_limits<double>::infinity();
  const torch::Tensor exact = torch::tensor({-inf, 1.0}, torch::kDouble);
  const std::vector<ErrorSource> bound = {
      {RoundingModel{torch::kFloat, 8, torch::kFloat, 0}, torch::ones({}, torch::kDouble)}};
  EXPECT_TRUE(withinRoundingBound(torch::tensor({-inf, 1.0}), exact, bound, "inf"));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(withinRoundingBound(torch::tensor({-inf, nan}), exact, bound, "nan"));
  EXPECT_FALSE(withinRoundingBound(torch::tensor({inf, 1.0}), exact, bound, "sign"));
  EXPECT_FALSE(withinRoundingBound(torch::ones({3}), exact, bound, "shape"));
  EXPECT_FALSE(withinRoundingBound(torch::Tensor(), exact, bound, "undefined"));
}

TEST(RoundingBoundTest, LargestMagnitudeSkipsUndefinedAndNonFinite) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(largestMagnitude({torch::tensor({-3.0, 2.0}), torch::Tensor(),
                              torch::tensor({-inf, 1.0})})
                .item<double>(),
            3.0);
  EXPECT_EQ(largestMagnitude({}).item<double>(), 0.0);
}

}  // namespace
}  // namespace recurlab::testing
