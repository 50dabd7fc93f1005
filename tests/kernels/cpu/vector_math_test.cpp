#include "kernels/cpu/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace recurlab::kernels {
namespace {

// Float results against libm in double. The fused kernels' float tests allow 2e-5 on whole
// recurrences; each elementwise function must stay well inside that: ~1e-6 relative.
double relativeError(float got, double want) {
  return std::abs(static_cast<double>(got) - want) / std::max(std::abs(want), 1e-300);
}

TEST(VectorMath, FloatExpWithinAFewUlps) {
  for (double x = -87.0; x <= 88.0; x += 0.01) {
    const float xf = static_cast<float>(x);
    ASSERT_LT(relativeError(vexp(xf), std::exp(static_cast<double>(xf))), 1e-6) << "x = " << xf;
  }
}

TEST(VectorMath, FloatLog1pKeepsRelativePrecisionForTinyArguments) {
  // The kernels call it on exp(-|v|) in (0, 1]; 1 + x rounds to 1 below 6e-8, where a plain
  // log(1 + x) would return 0.
  for (double x : {1e-30, 1e-12, 3e-8, 6e-8, 1e-7, 1e-4, 0.01, 0.3, 0.5, 0.9, 1.0}) {
    const float xf = static_cast<float>(x);
    EXPECT_LT(relativeError(vlog1p(xf), std::log1p(static_cast<double>(xf))), 1e-6)
        << "x = " << xf;
  }
  for (double x = 0.0; x <= 1.0; x += 1e-4) {
    const float xf = static_cast<float>(x);
    ASSERT_LE(relativeError(vlog1p(xf), std::log1p(static_cast<double>(xf))), 1e-6)
        << "x = " << xf;
  }
}

TEST(VectorMath, FloatLogSigmoidIsStableAndAccurate) {
  for (double v = -80.0; v <= 80.0; v += 0.01) {
    const float vf = static_cast<float>(v);
    const double vd = vf;
    const double want = std::min(vd, 0.0) - std::log1p(std::exp(-std::abs(vd)));
    ASSERT_LT(relativeError(vlogSigmoid(vf), want), 1e-6) << "v = " << vf;
  }
  // Far tails: finite, and the right size (exp is clamped at -87.3, so absolute accuracy).
  EXPECT_NEAR(vlogSigmoid(200.0f), 0.0f, 1e-37f);
  EXPECT_FLOAT_EQ(vlogSigmoid(-200.0f), -200.0f);
}

TEST(VectorMath, FloatSigmoidAndTanhWithinAbsoluteTolerance) {
  for (double x = -30.0; x <= 30.0; x += 0.01) {
    const float xf = static_cast<float>(x);
    const double xd = xf;
    ASSERT_NEAR(vsigmoid(xf), 1.0 / (1.0 + std::exp(-xd)), 2e-7) << "x = " << xf;
    ASSERT_NEAR(vtanh(xf), std::tanh(xd), 5e-7) << "x = " << xf;
  }
}

TEST(VectorMath, DoubleKeepsLibm) {
  // Double precision must match the naive references to 1e-12: the helpers are libm itself.
  for (double x : {-700.0, -3.5, -1e-9, 0.0, 2.25, 700.0}) {
    EXPECT_EQ(vexp(x), std::exp(x));
    EXPECT_EQ(vtanh(x), std::tanh(x));
    const double want = std::min(x, 0.0) - std::log1p(std::exp(-std::abs(x)));
    EXPECT_EQ(vlogSigmoid(x), want);
  }
}

}  // namespace
}  // namespace recurlab::kernels
