#pragma once
// Device helpers shared by the recurrence kernels: accumulator types, loads/stores that convert
// half and bfloat16 to float, the gate nonlinearities, launch sizes and launch error checks.
// Only for .cu files (nvcc); no Torch headers.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_scalar.h"

#ifdef RECURLAB_CUDA_EMULATION
#include "kernels/cuda/host_emulation.h"
#endif

// Kernel launches go through this macro so that the same source also runs on the host,
// sequentially, in the emulation build (kernels/cuda/host_emulation.h) that CI tests without
// a GPU. The kernel (a template-id, possibly with commas) comes last.
#ifdef RECURLAB_CUDA_EMULATION
#define RECURLAB_LAUNCH(blocks, threads, stream, ...) \
  ::recurlab::kernels::cuda::emulatedLaunch((blocks), (threads), (stream), __VA_ARGS__)
#else
#define RECURLAB_LAUNCH(blocks, threads, stream, ...) \
  __VA_ARGS__<<<(blocks), (threads), 0, (stream)>>>
#endif

namespace recurlab::kernels::cuda {

// Element type -> accumulator type: float for float/half/bfloat16, double for double.
template <typename T>
struct Accumulator {
  using type = float;
};
template <>
struct Accumulator<double> {
  using type = double;
};
template <typename T>
using AccOf = typename Accumulator<T>::type;

__device__ __forceinline__ float toAcc(float v) { return v; }
__device__ __forceinline__ double toAcc(double v) { return v; }
__device__ __forceinline__ float toAcc(__half v) { return __half2float(v); }
__device__ __forceinline__ float toAcc(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ void storeAcc(float* p, float v) { *p = v; }
__device__ __forceinline__ void storeAcc(double* p, double v) { *p = v; }
__device__ __forceinline__ void storeAcc(__half* p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void storeAcc(__nv_bfloat16* p, float v) {
  *p = __float2bfloat16_rn(v);
}

// Full-precision exp (not __expf) so float results stay within 1e-5 of the CPU kernel.
__device__ __forceinline__ float sigmoidOf(float v) { return 1.0f / (1.0f + expf(-v)); }
__device__ __forceinline__ double sigmoidOf(double v) { return 1.0 / (1.0 + exp(-v)); }
__device__ __forceinline__ float tanhOf(float v) { return tanhf(v); }
__device__ __forceinline__ double tanhOf(double v) { return tanh(v); }

__device__ __forceinline__ float log1pOf(float v) { return log1pf(v); }
__device__ __forceinline__ double log1pOf(double v) { return log1p(v); }
__device__ __forceinline__ float expOf(float v) { return expf(v); }
__device__ __forceinline__ double expOf(double v) { return exp(v); }

// log σ(v), stable for large |v| (the same branches as the CPU kernels' detail::logSigmoid).
template <typename A>
__device__ __forceinline__ A logSigmoidOf(A v) {
  return v >= A(0) ? -log1pOf(expOf(-v)) : v - log1pOf(expOf(v));
}

// Loads an optional value: `fallback` when the pointer is null.
template <typename T>
__device__ __forceinline__ AccOf<T> loadOr(const T* p, int64_t i, AccOf<T> fallback) {
  return p ? toAcc(p[i]) : fallback;
}

// How many time steps a column loads before computing them: the loads of a chunk are
// independent, so one memory latency covers them all, and the dependent arithmetic follows.
// RECURLAB_CUDA_STEPS_IN_FLIGHT overrides it at build time (scripts/tune-cuda-kernels.sh).
#ifndef RECURLAB_CUDA_STEPS_IN_FLIGHT
#define RECURLAB_CUDA_STEPS_IN_FLIGHT 4
#endif
constexpr int kStepsInFlight = RECURLAB_CUDA_STEPS_IN_FLIGHT;

// Walks steps 0..count-1 of one column: load(i) reads step i (no dependence on the state),
// step(i, data) advances the state. Loads run kStepsInFlight steps ahead of the arithmetic.
template <typename Load, typename Step>
__device__ __forceinline__ void walkSteps(int64_t count, Load&& load, Step&& step) {
  using Data = decltype(load(int64_t(0)));
  for (int64_t s0 = 0; s0 < count; s0 += kStepsInFlight) {
    Data data[kStepsInFlight];
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q)
      if (s0 + q < count) data[q] = load(s0 + q);
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q) {
      if (s0 + q >= count) break;
      step(s0 + q, data[q]);
    }
  }
}

// One thread per column and a serial loop over time: few threads, each latency bound. Smaller
// blocks spread a small column count over more multiprocessors (a heuristic, not yet tuned on a
// GPU: no GPU was available when this was written).
#ifdef RECURLAB_CUDA_EMULATION
inline int threadsPerBlockFor(int64_t) { return kEmulatedThreadsPerBlock; }
#else
inline int threadsPerBlockFor(int64_t columns) {
  // RECURLAB_CUDA_THREADS (64..1024) replaces the heuristic: a tuning knob.
  static const int forced = [] {
    const char* v = std::getenv("RECURLAB_CUDA_THREADS");
    const int n = v ? std::atoi(v) : 0;
    return n >= 32 && n <= 1024 ? n : 0;
  }();
  if (forced) return forced;
  int device = 0, multiprocessors = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess) {
    multiprocessors = 0;
  }
  int threads = 256;
  while (threads > 64 && (columns + threads - 1) / threads < 2 * int64_t(multiprocessors))
    threads /= 2;
  return threads;
}
#endif

inline unsigned blocksFor(int64_t items, int threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

#ifdef RECURLAB_CUDA_EMULATION
inline void throwIfLaunchFailed(const char*) {}
#else
inline void throwIfLaunchFailed(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("recurlab CUDA: launching ") + what + " failed: " +
                             cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}
#endif

// The sizes every launcher checks before it sizes a grid: length and batch at least 0, hidden
// at least 1, and the op's own rule (`op_rule_holds`, told by `op_rule`, e.g. the n-gram order).
// Throws "recurlab CUDA <op>: bad sizes (length L, batch B, hidden H<op_rule>)".
inline void checkLaunchSizes(const char* op, int64_t length, int64_t batch, int64_t hidden_size,
                             bool op_rule_holds = true, const std::string& op_rule = "") {
  if (length >= 0 && batch >= 0 && hidden_size > 0 && op_rule_holds) return;
  throw std::invalid_argument(std::string("recurlab CUDA ") + op + ": bad sizes (length " +
                              std::to_string(length) + ", batch " + std::to_string(batch) +
                              ", hidden " + std::to_string(hidden_size) + op_rule + ")");
}

// CudaScalar tag -> C++ element type, for the launchers' switch over element types.
template <typename F>
void withElementType(CudaScalar s, F&& f) {
  switch (s) {
    case CudaScalar::Float: f(float{}); return;
    case CudaScalar::Double: f(double{}); return;
    case CudaScalar::Half: f(__half{}); return;
    case CudaScalar::BFloat16: f(__nv_bfloat16{}); return;
  }
  throw std::invalid_argument("recurlab CUDA: unknown element type tag");
}

}  // namespace recurlab::kernels::cuda
