#pragma once
// Branch-free elementwise math that GCC vectorizes inside `#pragma omp simd` loops (std::exp
// is a library call and blocks vectorization). double keeps libm so double-precision results
// match the naive references to 1e-12. The float paths are tested against libm in double over
// the whole float range (tests/kernels/cpu/vector_math_test.cpp states the ulp bounds and
// where they come from); NaN gives NaN, ±inf the limits, results below FLT_MIN may be 0.
#include <cmath>
#include <cstdint>
#include <cstring>

// Per-run kernel functions carry this: the clones let one binary use AVX-512 or AVX2 where
// the CPU has them, with `#pragma omp simd` loops over adjacent units inside.
#if defined(__x86_64__) && !defined(__clang__)
#define RECURLAB_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RECURLAB_SIMD_CLONES
#endif

namespace recurlab::kernels {

// exp: x = n·ln2 + r with n = round(x / ln2), |r| <= ln2/2 (Cody–Waite: ln2 in two parts so
// n·C1 is exact), e^r from a Cephes-style degree-6 polynomial, then 2^n as 2y·2^(n-1), so
// results up to FLT_MAX come out right and overflow gives inf. Results below 2·FLT_MIN are
// flushed to 0: denormal operands cost x86 a microcode assist each, and a value below 1e-38
// carries nothing here. n is read from the bits of the rounding sum instead of a
// float-to-int conversion, which is undefined for NaN.
inline float vexp(float x) {
  // NaN fails both comparisons and becomes the lower clamp; it is put back at the end.
  constexpr float kLow = -86.6433976f;  // ln(2·FLT_MIN): 2^(n-1) below stays a normal float
  const float xc = x > kLow ? (x < 89.0f ? x : 89.0f) : kLow;
  const float t = xc * 1.44269504088896341f + 12582912.0f;
  const float n = t - 12582912.0f;
  int32_t tbits;
  std::memcpy(&tbits, &t, sizeof tbits);
  const float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  // 2^(n-1) with n in [-125, 128]: biased exponent n + 126 in [1, 254]. tbits - 0x4B400000 = n.
  const int32_t bits = (tbits - 0x4B400000 + 126) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float e = (y + y) * scale;
  return x > kLow ? e : (x == x ? 0.0f : x);
}

inline double vexp(double x) { return std::exp(x); }

// σ(x) from e = exp(-|x|) <= 1: 1/(1+e) for x >= 0, e/(1+e) for x < 0. The plain
// 1/(1+exp(-x)) gives 0 instead of the denormal σ(x) once exp(-x) overflows (x < -88.7).
template <typename T>
inline T vsigmoid(T x) {
  const T e = vexp(x < T(0) ? x : -x);
  const T s = T(1) / (T(1) + e);
  return x < T(0) ? e * s : s;
}

// tanh, odd: for |x| < 0.625 an odd minimax polynomial (Cephes tanhf's), which keeps full
// relative precision near 0 where 2σ(2x) − 1 cancels to 0; above, 1 − 2/(1 + e^{2|x|}),
// whose error relative to tanh >= 0.55 stays a few ulps. Both are computed, one selected.
inline float vtanh(float x) {
  const float a = std::fabs(x);
  const float z = a * a;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = a + a * z * p;
  const float large = 1.0f - 2.0f / (1.0f + vexp(a + a));
  return std::copysign(a < 0.625f ? small : large, x);
}

// Double does not vectorize anyway (std::exp): keep libm's tanh, exact near 0.
inline double vtanh(double x) { return std::tanh(x); }

// log(1 + x) for x >= 0 (float): log of u = 1 + x from a Cephes-style polynomial on the
// mantissa, then scaled by x / (u - 1), which cancels the rounding of 1 + x (so tiny x keep
// full relative precision). Branch-free: the u == 1 and x == inf cases are selects.
inline float vlog1p(float x) {
  const float u = 1.0f + x;
  int32_t bits;
  std::memcpy(&bits, &u, sizeof bits);
  int32_t e = ((bits >> 23) & 0xff) - 126;  // u = m · 2^e with m in [0.5, 1)
  const int32_t mbits = (bits & 0x007fffff) | 0x3f000000;
  float m;
  std::memcpy(&m, &mbits, sizeof m);
  const bool small = m < 0.707106781186547524f;
  e = small ? e - 1 : e;
  const float a = small ? m + m - 1.0f : m - 1.0f;
  const float z = a * a;
  float p = 7.0376836292e-2f;
  p = p * a - 1.1514610310e-1f;
  p = p * a + 1.1676998740e-1f;
  p = p * a - 1.2420140846e-1f;
  p = p * a + 1.4249322787e-1f;
  p = p * a - 1.6668057665e-1f;
  p = p * a + 2.0000714765e-1f;
  p = p * a - 2.4999993993e-1f;
  p = p * a + 3.3333331174e-1f;
  const float fe = static_cast<float>(e);
  const float y = p * a * z + fe * -2.12194440e-4f - 0.5f * z;
  const float logu = a + y + fe * 0.693359375f;
  // x = inf: u's bits give a finite logu (~89), and inf/inf would be NaN; capping d keeps
  // x/d = inf, so the product is inf (a min, where a third select cost 2.5x in log-sigmoid).
  const float d = u - 1.0f;
  const float dcap = d < 3.40282347e38f ? d : 3.40282347e38f;
  // d == 0: x below half an ulp of 1, log1p(x) = x.
  return d == 0.0f ? x : logu * (x / dcap);
}

inline double vlog1p(double x) { return std::log1p(x); }

// log(1 + e) for e in [0, 1] only (float): e · q(e), q the degree-9 interpolant of
// log1p(e)/e at the Chebyshev nodes of [0, 1] (its own error < 0.1 ulp; the Horner steps add
// about 1 ulp). No division and no exponent split: on AVX2 one vdivps costs as much as ~25
// fused multiply-adds, and vlog1p's division made log-sigmoid, and with it the max-plus
// recurrence RRNN(B)m+, ~2x slower than the whole plus-times step. Tiny e keeps full relative
// precision (q(0) = 1); NaN stays NaN.
inline float vlog1pUnit(float e) {
  float q = -3.1760570171e-03f;
  q = q * e + 1.9542527254e-02f;
  q = q * e - 5.6373612814e-02f;
  q = q * e + 1.0543623794e-01f;
  q = q * e - 1.5269667073e-01f;
  q = q * e + 1.9663274257e-01f;
  q = q * e - 2.4951616263e-01f;
  q = q * e + 3.3329710499e-01f;
  q = q * e - 4.9999892648e-01f;
  q = q * e + 9.9999999466e-01f;
  return e * q;
}

inline double vlog1pUnit(double e) { return std::log1p(e); }

// log σ(v) = min(v, 0) - log(1 + exp(-|v|)), stable for large |v| and branch-free;
// exp(-|v|) is in [0, 1], the range of vlog1pUnit.
template <typename T>
inline T vlogSigmoid(T v) {
  const T a = v < T(0) ? -v : v;
  const T lo = v < T(0) ? v : T(0);
  return lo - vlog1pUnit(vexp(-a));
}

}  // namespace recurlab::kernels
