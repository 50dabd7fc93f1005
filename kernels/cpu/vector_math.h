#pragma once
// Branch-free elementwise math that GCC vectorizes inside `#pragma omp simd` loops (std::exp
// is a library call and blocks vectorization). float uses a Cephes-style exp (range
// reduction to [-ln2/2, ln2/2], degree-6 polynomial, exponent bits set directly): about 1 ulp.
// double keeps std::exp so double-precision results match the naive references to 1e-12.
#include <cstdint>
#include <cstring>
#include <cmath>

// Per-run kernel functions carry this: the clones let one binary use AVX-512 or AVX2 where
// the CPU has them, with `#pragma omp simd` loops over adjacent units inside.
#if defined(__x86_64__) && !defined(__clang__)
#define RECURLAB_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RECURLAB_SIMD_CLONES
#endif

namespace recurlab::kernels {

inline float vexp(float x) {
  x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  // Round to nearest by adding and removing 1.5·2^23 (plain arithmetic: floor() would be a
  // library call without SSE4.1 and stop vectorization).
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;  // n in [-126, 127]
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

inline double vexp(double x) { return std::exp(x); }

template <typename T>
inline T vsigmoid(T x) {
  return T(1) / (T(1) + vexp(-x));
}

inline float vtanh(float x) { return 2.0f * vsigmoid(2.0f * x) - 1.0f; }

// Double does not vectorize anyway (std::exp): keep libm's tanh, exact near 0.
inline double vtanh(double x) { return std::tanh(x); }

// log(1 + x) for x >= 0 (float): log of u = 1 + x from a Cephes-style polynomial on the
// mantissa, then scaled by x / (u - 1), which cancels the rounding of 1 + x (so tiny x keep
// full relative precision). Branch-free: the u == 1 case is a select.
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
  const float d = u - 1.0f;
  return d == 0.0f ? x : logu * (x / d);
}

inline double vlog1p(double x) { return std::log1p(x); }

// log σ(v) = min(v, 0) - log(1 + exp(-|v|)), stable for large |v| and branch-free.
template <typename T>
inline T vlogSigmoid(T v) {
  const T a = v < T(0) ? -v : v;
  const T lo = v < T(0) ? v : T(0);
  return lo - vlog1p(vexp(-a));
}

}  // namespace recurlab::kernels
