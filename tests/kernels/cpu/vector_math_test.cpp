#include "kernels/cpu/vector_math.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace recurlab::kernels {
namespace {

// The float paths against libm evaluated in double, in ulps of the float result. Bounds (u =
// one ulp; each float operation rounds by at most 0.5 u of its result):
// - vexp 1.5 u: |r| <= ln2/2 with the Cody–Waite split exact (n·C1 has <= 17 bits); the
//   polynomial's approximation and Horner rounding stay far below 0.5 u because |p·r²| <
//   0.07; the last two additions round by <= 0.5 u and <= 0.25 u; the two powers of two are
//   exact. Results below 2·FLT_MIN are flushed to 0 by design (denormals slow the kernels):
//   where libm's value is below 2·FLT_MIN, any result within 2·FLT_MIN of it passes.
// - vsigmoid 4 u: e = exp(-|x|) <= 1 brings <= 1.5 u · e/(1+e) <= 0.75 u into 1 + e, which
//   rounds (0.5 u); the division rounds (0.5 u); for x < 0 the product e·s adds e's 1.5 u and
//   0.5 u: 1.75 u + 1.5 u + 0.5 u = 3.75 u.
// - vtanh 2 u: |x| < 0.625: the minimax polynomial is good to ~1 u (its correction a·z·p is
//   < 0.12 a, so its rounding counts at most 0.12 of an ulp each) and the final addition
//   rounds 0.5 u; |x| >= 0.625: q = 2/(1+e^{2|x|}) <= 0.45 carries 1.5 + 0.5 + 0.5 = 2.5 ulp
//   of q = 1.25 ulp of tanh >= 0.55 (half the binade), plus 0.5 u for 1 − q: 1.75 u.
// - vlog1p 3 u: log u from the mantissa polynomial ~1.5 u, the factor x/(u−1) rounds 0.5 u
//   and the product 0.5 u; the first-order correction leaves < 0.3 u (the difference between
//   (x−d)/d and (x−d)/(u·log u) for d = u − 1).
// - vlogSigmoid 5 u: log1p(e) carries 3 u + 1.5 u · e/((1+e)·log1p(e)) <= 4.5 u; min(v, 0)
//   and −log1p(e) have the same sign (no cancellation), so the subtraction adds 0.5 u.
// - vlog1pUnit 2.5 u on [0, 1] (log-sigmoid's log(1 + e^{-|v|})): the interpolant itself is
//   within 0.1 u; each of the ten Horner steps rounds by 0.5 u of a partial sum that the next
//   steps scale by e <= 1 against coefficients of alternating sign; over every float in [0, 1]
//   the worst is 2.0 u without FMA, 1.6 u with it (measured once, exhaustively).
// NaN must give NaN; an infinite or out-of-float-range reference must give that infinity.
constexpr double kExpUlps = 1.5, kSigmoidUlps = 4, kTanhUlps = 2, kLog1pUlps = 3,
                 kLogSigmoidUlps = 5;

// One ulp of a float near `ref` >= FLT_MIN: the spacing of its binade.
double ulpAt(double ref) {
  const double a = std::fabs(ref);
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

double ulpError(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (std::fabs(ref) > FLT_MAX) {
    // libm's value overflows float: only the matching infinity is right (to within the
    // rounding of the last finite float).
    if (std::isinf(got)) return std::signbit(got) == std::signbit(ref) ? 0 : INFINITY;
    return std::fabs(ref) < FLT_MAX + 0.5 * ulpAt(FLT_MAX) ? std::fabs(got - ref) / ulpAt(FLT_MAX)
                                                          : INFINITY;
  }
  if (std::fabs(ref) < 2.0 * FLT_MIN)
    return std::fabs(static_cast<double>(got) - ref) <= 2.0 * FLT_MIN ? 0 : INFINITY;
  return std::fabs(static_cast<double>(got) - ref) / ulpAt(ref);
}

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Every 4099th bit pattern (~1M floats of both signs: all binades, denormals, ±inf, NaNs),
// plus the edges each function has: 0, the smallest denormals, tiny |x| for tanh, the
// reduction and overflow thresholds of exp, tanh's switch at 0.625.
std::vector<float> floatSweep() {
  std::vector<float> xs;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 4099) xs.push_back(fromBits(uint32_t(b)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.0f, FLT_MIN, FLT_MAX, inf, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), 1e-40f, 1e-30f, 1e-10f, 3e-8f,
                  6e-8f, 1e-4f, 0.625f, std::nextafter(0.625f, 0.0f), 87.3f, 87.3365448f,
                  88.3762627f, 88.7228394f, 88.7228470f, 89.0f, 103.972f, 104.0f, 105.0f,
                  200.0f})
    for (float s : {1.0f, -1.0f}) xs.push_back(s * x);
  for (float x = 1e-12f; x < 1.0f; x *= 1.01f) {  // a fine log grid near 0, both signs
    xs.push_back(x);
    xs.push_back(-x);
  }
  return xs;
}

template <typename F, typename Ref>
void expectWithinUlps(const char* name, F f, Ref ref, double bound, bool nonnegative_only = false) {
  double worst = 0;
  float worst_x = 0;
  for (float x : floatSweep()) {
    if (nonnegative_only && x < 0) continue;
    const double e = ulpError(f(x), ref(static_cast<double>(x)));
    if (!(e <= worst)) {
      worst = e;
      worst_x = x;
    }
  }
  EXPECT_LE(worst, bound) << name << ": worst at x = " << worst_x << " (" << f(worst_x)
                          << " vs libm " << ref(static_cast<double>(worst_x)) << ")";
}

TEST(VectorMath, FloatExpWithinItsUlpBoundOverTheWholeFloatRange) {
  expectWithinUlps("vexp", [](float x) { return vexp(x); }, [](double x) { return std::exp(x); },
                   kExpUlps);
}

TEST(VectorMath, FloatSigmoidWithinItsUlpBoundOverTheWholeFloatRange) {
  expectWithinUlps("vsigmoid", [](float x) { return vsigmoid(x); },
                   [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, kSigmoidUlps);
}

TEST(VectorMath, FloatTanhKeepsRelativePrecisionNearZeroAndOverTheWholeRange) {
  expectWithinUlps("vtanh", [](float x) { return vtanh(x); }, [](double x) { return std::tanh(x); },
                   kTanhUlps);
  // Where 2σ(2x) − 1 cancels to 0: tanh(x) = x to within its ulp bound.
  for (float x : {1e-30f, 1e-20f, 4.47e-8f, 1e-5f})
    EXPECT_NEAR(vtanh(x) / x, 1.0, kTanhUlps * FLT_EPSILON) << x;
}

TEST(VectorMath, FloatLog1pWithinItsUlpBoundForNonNegativeArguments) {
  expectWithinUlps("vlog1p", [](float x) { return vlog1p(x); }, [](double x) { return std::log1p(x); },
                   kLog1pUlps, /*nonnegative_only=*/true);
}

TEST(VectorMath, FloatLog1pOnTheUnitIntervalWithinItsUlpBound) {
  constexpr double kLog1pUnitUlps = 2.5;
  double worst = 0;
  float worst_x = 0;
  // Every 257th float of [0, 1] (~4M: every binade down to the denormals) and its top end.
  for (uint32_t b = 0; b <= 0x3f800000u; b += 257) {
    for (float x : {fromBits(b), fromBits(0x3f800000u - b / 4096)}) {
      const double e = ulpError(vlog1pUnit(x), std::log1p(static_cast<double>(x)));
      if (!(e <= worst)) {
        worst = e;
        worst_x = x;
      }
    }
  }
  EXPECT_LE(worst, kLog1pUnitUlps) << "vlog1pUnit: worst at x = " << worst_x;
  EXPECT_EQ(vlog1pUnit(0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(vlog1pUnit(std::numeric_limits<float>::quiet_NaN())));
}

TEST(VectorMath, FloatLogSigmoidWithinItsUlpBoundOverTheWholeFloatRange) {
  expectWithinUlps("vlogSigmoid", [](float x) { return vlogSigmoid(x); },
                   [](double v) { return std::min(v, 0.0) - std::log1p(std::exp(-std::fabs(v))); },
                   kLogSigmoidUlps);
}

TEST(VectorMath, FloatInfinitiesAndNaNGiveTheLimits) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vexp(inf), inf);
  EXPECT_EQ(vexp(-inf), 0.0f);
  EXPECT_EQ(vexp(89.0f), inf);  // e^89 > FLT_MAX
  EXPECT_GE(vexp(-86.6f), 2.0f * FLT_MIN);
  EXPECT_EQ(vexp(-86.7f), 0.0f);  // below 2·FLT_MIN: flushed
  EXPECT_EQ(vexp(-100.0f), 0.0f);
  EXPECT_EQ(vsigmoid(inf), 1.0f);
  EXPECT_EQ(vsigmoid(-inf), 0.0f);
  EXPECT_EQ(vtanh(inf), 1.0f);
  EXPECT_EQ(vtanh(-inf), -1.0f);
  EXPECT_EQ(vlog1p(inf), inf);
  EXPECT_EQ(vlogSigmoid(inf), 0.0f);
  EXPECT_EQ(vlogSigmoid(-inf), -inf);
  for (float x : {nan, -nan}) {
    EXPECT_TRUE(std::isnan(vexp(x)));
    EXPECT_TRUE(std::isnan(vsigmoid(x)));
    EXPECT_TRUE(std::isnan(vtanh(x)));
    EXPECT_TRUE(std::isnan(vlog1p(x)));
    EXPECT_TRUE(std::isnan(vlogSigmoid(x)));
  }
}

TEST(VectorMath, DoubleKeepsLibm) {
  // Double precision must match the naive references to 1e-12: the helpers are libm itself.
  for (double x : {-700.0, -3.5, -1e-9, 0.0, 2.25, 700.0}) {
    EXPECT_EQ(vexp(x), std::exp(x));
    EXPECT_EQ(vtanh(x), std::tanh(x));
    EXPECT_EQ(vlog1p(std::fabs(x)), std::log1p(std::fabs(x)));
    const double want = std::min(x, 0.0) - std::log1p(std::exp(-std::abs(x)));
    EXPECT_EQ(vlogSigmoid(x), want);
  }
}

}  // namespace
}  // namespace recurlab::kernels
