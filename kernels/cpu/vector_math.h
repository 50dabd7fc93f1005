#pragma once
// Branch-free elementwise math that GCC vectorizes inside `#pragma omp simd` loops (std::exp
// is a library call and blocks vectorization). float uses a Cephes-style exp (range
// reduction to [-ln2/2, ln2/2], degree-6 polynomial, exponent bits set directly): about 1 ulp.
// double keeps std::exp so double-precision results match the naive references to 1e-12.
#include <cstdint>
#include <cstring>
#include <cmath>

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

template <typename T>
inline T vtanh(T x) {
  return T(2) * vsigmoid(T(2) * x) - T(1);
}

}  // namespace recurlab::kernels
