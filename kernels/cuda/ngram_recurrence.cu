// The n-gram RCNN recurrence on CUDA: the twin of kernels/cpu/ngram_recurrence.cpp, the same
// arithmetic in the same order. One thread per (batch, unit) column with the n states in
// registers (arrays of kNgramMaxOrder indexed only by unrolled loop counters, so they stay in
// registers); loads run kStepsInFlight steps ahead (device_math.cuh).
#include "kernels/cuda/ngram_recurrence_launch.h"

#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

constexpr int kMaxN = static_cast<int>(kNgramMaxOrder);

template <typename T>
struct NgramInputs {
  const T* __restrict__ u;
  const T* __restrict__ c0;
  const uint8_t* __restrict__ mask_pad;
};

struct NgramShape {
  int64_t L, B, d;
  int n, k;
  bool gate;
};

template <typename A>
struct NgramStep {
  A z[kMaxN], fpre, opre;
  bool pad;
};

template <typename T>
__device__ __forceinline__ NgramStep<AccOf<T>> loadNgramStep(const NgramInputs<T>& in,
                                                             const NgramShape& sh, int64_t hoff,
                                                             int64_t pad_off) {
  using A = AccOf<T>;
  NgramStep<A> s;
  const T* ui = in.u + hoff * sh.k;
#pragma unroll
  for (int j = 0; j < kMaxN; ++j) s.z[j] = j < sh.n ? toAcc(ui[j]) : A(0);
  s.fpre = toAcc(ui[sh.n]);
  s.opre = sh.gate ? toAcc(ui[sh.n + 1]) : A(0);
  s.pad = in.mask_pad && in.mask_pad[pad_off];
  return s;
}

template <typename T>
__global__ void ngramForwardKernel(NgramInputs<T> in, T* __restrict__ h, T* __restrict__ c,
                                   T* __restrict__ last_c, NgramShape sh) {
  using A = AccOf<T>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= sh.B * sh.d) return;
  const int64_t b = col / sh.d, d = sh.d, nd = sh.n * d;
  const int64_t s0 = b * nd + (col - b * d);  // state c^(1) of this column within a row
  const int n = sh.n;
  A st[kMaxN];
#pragma unroll
  for (int j = 0; j < kMaxN; ++j) st[j] = j < n ? loadOr(in.c0, s0 + j * d, A(0)) : A(0);
  walkSteps(
      sh.L,
      [&](int64_t t) { return loadNgramStep(in, sh, t * sh.B * d + col, t * sh.B + b); },
      [&](int64_t t, const NgramStep<A>& s) {
        const int64_t hoff = t * sh.B * d + col, coff = t * sh.B * nd + s0;
        if (s.pad) {  // states carried, h = 0
#pragma unroll
          for (int j = 0; j < kMaxN; ++j)
            if (j < n) storeAcc(c + coff + j * d, st[j]);
          storeAcc(h + hoff, A(0));
          return;
        }
        const A f = sigmoidOf(s.fpre);
        // Highest order first: c^(j) reads c^(j-1) of the previous step.
#pragma unroll
        for (int q = 0; q < kMaxN; ++q) {
          const int j = kMaxN - 1 - q;
          if (j < n) {
            const A below = j == 0 ? A(1) : st[j > 0 ? j - 1 : 0];
            st[j] = f * st[j] + below * (A(1) - f) * s.z[j];
            storeAcc(c + coff + j * d, st[j]);
          }
        }
        A top = st[0];
#pragma unroll
        for (int j = 1; j < kMaxN; ++j)
          if (j < n) top = st[j];
        storeAcc(h + hoff, tanhOf(sh.gate ? sigmoidOf(s.opre) * top : top));
      });
#pragma unroll
  for (int j = 0; j < kMaxN; ++j)
    if (j < n) storeAcc(last_c + s0 + j * d, st[j]);
}

template <typename T>
struct NgramGradients {
  const T* __restrict__ c;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_c;
  T* __restrict__ grad_u;
  T* __restrict__ grad_c0;
};

template <typename A>
struct NgramBackStep {
  NgramStep<A> in;
  A dh, top, prev[kMaxN];
};

template <typename T>
__global__ void ngramBackwardKernel(NgramInputs<T> in, NgramGradients<T> g, NgramShape sh) {
  using A = AccOf<T>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= sh.B * sh.d) return;
  const int64_t b = col / sh.d, d = sh.d, nd = sh.n * d, cstride = sh.B * nd;
  const int64_t s0 = b * nd + (col - b * d);
  const int n = sh.n, k = sh.k;
  A gs[kMaxN];
#pragma unroll
  for (int j = 0; j < kMaxN; ++j) gs[j] = j < n ? loadOr(g.grad_last_c, s0 + j * d, A(0)) : A(0);
  walkSteps(
      sh.L,
      [&](int64_t i) {
        const int64_t t = sh.L - 1 - i, hoff = t * sh.B * d + col, coff = t * cstride + s0;
        NgramBackStep<A> s;
        s.in = loadNgramStep(in, sh, hoff, t * sh.B + b);
        s.dh = loadOr(g.grad_h, hoff, A(0));
        s.top = toAcc(g.c[coff + (n - 1) * d]);
#pragma unroll
        for (int j = 0; j < kMaxN; ++j) {
          s.prev[j] = A(0);
          if (j < n)
            s.prev[j] = t > 0 ? toAcc(g.c[coff - cstride + j * d])
                              : loadOr(in.c0, s0 + j * d, A(0));
        }
        return s;
      },
      [&](int64_t i, const NgramBackStep<A>& s) {
        const int64_t t = sh.L - 1 - i, hoff = t * sh.B * d + col;
        T* gu = g.grad_u + hoff * k;
        if (s.in.pad) {  // state gradients pass unchanged; nothing flows to u
          for (int q = 0; q < k; ++q) storeAcc(gu + q, A(0));
          return;
        }
        const A f = sigmoidOf(s.in.fpre);
        A gc[kMaxN];
#pragma unroll
        for (int j = 0; j < kMaxN; ++j) gc[j] = gs[j];
        A d_top;
        if (sh.gate) {
          const A o = sigmoidOf(s.in.opre);
          const A th = tanhOf(o * s.top);
          const A da = s.dh * (A(1) - th * th);
          d_top = da * o;
          storeAcc(gu + n + 1, da * s.top * o * (A(1) - o));
        } else {
          const A th = tanhOf(s.top);
          d_top = s.dh * (A(1) - th * th);
        }
#pragma unroll
        for (int j = 0; j < kMaxN; ++j)
          if (j == n - 1) gc[j] += d_top;
        A d_f = A(0);
#pragma unroll
        for (int j = 0; j < kMaxN; ++j) {
          if (j < n) {
            const A below = j == 0 ? A(1) : s.prev[j > 0 ? j - 1 : 0];
            const A d_w = gc[j] * below;
            d_f += gc[j] * s.prev[j] - d_w * s.in.z[j];  // w = (1 - f)·z also depends on f
            storeAcc(gu + j, d_w * (A(1) - f));
            // dL/dc^(j)_{t-1}: through its own carry and through c^(j+1)'s input.
            const int up = j + 1 < kMaxN ? j + 1 : j;
            gs[j] = gc[j] * f + (j + 1 < n ? gc[up] * (A(1) - f) * s.in.z[up] : A(0));
          }
        }
        storeAcc(gu + n, d_f * f * (A(1) - f));
      });
#pragma unroll
  for (int j = 0; j < kMaxN; ++j)
    if (j < n) storeAcc(g.grad_c0 + s0 + j * d, gs[j]);
}

NgramShape shapeOf(const NgramCudaGeometry& g) {
  checkLaunchSizes("n-gram recurrence", g.length, g.batch, g.hidden_size,
                   g.n >= 1 && g.n <= kNgramMaxOrder,
                   ", n " + std::to_string(g.n) + "; n must be 1..4");
  return {g.length,         g.batch, g.hidden_size, static_cast<int>(g.n),
          static_cast<int>(g.numMatrices()), g.output_gate};
}

}  // namespace

void launchNgramRecurrenceForward(const NgramCudaForwardArgs& a, Stream stream) {
  const NgramShape sh = shapeOf(a.geometry);
  const int64_t cols = a.geometry.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const NgramInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.c0),
                            a.mask_pad};
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, ngramForwardKernel<T>)(
        in, static_cast<T*>(a.h), static_cast<T*>(a.c), static_cast<T*>(a.last_c), sh);
  });
  throwIfLaunchFailed("the n-gram recurrence forward kernel");
}

void launchNgramRecurrenceBackward(const NgramCudaBackwardArgs& a, Stream stream) {
  const NgramShape sh = shapeOf(a.geometry);
  const int64_t cols = a.geometry.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const NgramInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.c0),
                            a.mask_pad};
    const NgramGradients<T> grads{static_cast<const T*>(a.c), static_cast<const T*>(a.grad_h),
                                  static_cast<const T*>(a.grad_last_c),
                                  static_cast<T*>(a.grad_u), static_cast<T*>(a.grad_c0)};
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, ngramBackwardKernel<T>)(
        in, grads, sh);
  });
  throwIfLaunchFailed("the n-gram recurrence backward kernel");
}

}  // namespace recurlab::kernels::cuda
