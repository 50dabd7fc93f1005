// QRNN fo/f-pooling on CUDA: the twin of kernels/cpu/qrnn_pooling.cpp (paper convention:
// c_t = f ⊙ c_{t-1} + (1 - f) ⊙ z, zoneout scaling the update weight 1 - f), with the same
// arithmetic in the same order. One thread per (batch, unit) column, the state in a register,
// coalesced reads across a warp, loads kStepsInFlight steps ahead (device_math.cuh).
#include "kernels/cuda/qrnn_pooling_launch.h"

#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

template <typename T>
struct QrnnInputs {
  const T* __restrict__ u;
  const T* __restrict__ c0;
  const T* __restrict__ zoneout;
  const uint8_t* __restrict__ mask_pad;
};

template <typename A>
struct QrnnStep {
  A z, f, o, m;  // pre-activations of z, f, o; zoneout factor
  bool pad;
};

template <typename T>
__device__ __forceinline__ QrnnStep<AccOf<T>> loadQrnnStep(const QrnnInputs<T>& in, int64_t off,
                                                           int64_t pad_off, int k, bool gate) {
  using A = AccOf<T>;
  const T* ui = in.u + off * k;
  QrnnStep<A> s;
  s.z = toAcc(ui[0]);
  s.f = toAcc(ui[1]);
  s.o = gate ? toAcc(ui[2]) : A(0);
  s.m = loadOr(in.zoneout, off, A(1));
  s.pad = in.mask_pad && in.mask_pad[pad_off];
  return s;
}

template <typename T>
__global__ void qrnnForwardKernel(QrnnInputs<T> in, T* __restrict__ h, T* __restrict__ c,
                                  T* __restrict__ last_c, int64_t L, int64_t B, int64_t d,
                                  bool gate) {
  using A = AccOf<T>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= B * d) return;
  const int64_t b = col / d, stride = B * d;
  const int k = gate ? 3 : 2;
  A state = loadOr(in.c0, col, A(0));
  walkSteps(
      L,
      [&](int64_t t) { return loadQrnnStep(in, t * stride + col, t * B + b, k, gate); },
      [&](int64_t t, const QrnnStep<A>& s) {
        const int64_t off = t * stride + col;
        if (s.pad) {  // c carried, h = 0
          storeAcc(c + off, state);
          storeAcc(h + off, A(0));
          return;
        }
        const A z = tanhOf(s.z);
        const A f = sigmoidOf(s.f);
        const A upd = (A(1) - f) * s.m;
        const A cn = state + upd * (z - state);
        storeAcc(c + off, cn);
        storeAcc(h + off, gate ? sigmoidOf(s.o) * cn : cn);
        state = cn;
      });
  storeAcc(last_c + col, state);
}

template <typename T>
struct QrnnGradients {
  const T* __restrict__ c;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_c;
  T* __restrict__ grad_u;
  T* __restrict__ grad_c0;
};

template <typename A>
struct QrnnBackStep {
  QrnnStep<A> in;
  A dh, ct, cp;
};

template <typename T>
__global__ void qrnnBackwardKernel(QrnnInputs<T> in, QrnnGradients<T> g, int64_t L, int64_t B,
                                   int64_t d, bool gate) {
  using A = AccOf<T>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= B * d) return;
  const int64_t b = col / d, stride = B * d;
  const int k = gate ? 3 : 2;
  const A c_init = loadOr(in.c0, col, A(0));
  A gstate = loadOr(g.grad_last_c, col, A(0));
  walkSteps(
      L,
      [&](int64_t i) {
        const int64_t t = L - 1 - i, off = t * stride + col;
        QrnnBackStep<A> s;
        s.in = loadQrnnStep(in, off, t * B + b, k, gate);
        s.dh = loadOr(g.grad_h, off, A(0));
        s.ct = toAcc(g.c[off]);
        s.cp = t > 0 ? toAcc(g.c[off - stride]) : c_init;
        return s;
      },
      [&](int64_t i, const QrnnBackStep<A>& s) {
        const int64_t t = L - 1 - i, off = t * stride + col;
        T* gu = g.grad_u + off * k;
        if (s.in.pad) {  // dL/dc passes unchanged; nothing flows to u
          for (int q = 0; q < k; ++q) storeAcc(gu + q, A(0));
          return;
        }
        const A z = tanhOf(s.in.z);
        const A f = sigmoidOf(s.in.f);
        const A m = s.in.m;
        const A upd = (A(1) - f) * m;
        A g_c = gstate;
        if (gate) {
          const A o = sigmoidOf(s.in.o);
          g_c += s.dh * o;
          storeAcc(gu + 2, s.dh * s.ct * o * (A(1) - o));
        } else {
          g_c += s.dh;
        }
        storeAcc(gu + 0, g_c * upd * (A(1) - z * z));
        storeAcc(gu + 1, -g_c * (z - s.cp) * m * f * (A(1) - f));
        gstate = g_c * (A(1) - upd);
      });
  storeAcc(g.grad_c0 + col, gstate);
}

}  // namespace

void launchQrnnPoolingForward(const QrnnCudaForwardArgs& a, Stream stream) {
  const QrnnCudaGeometry& g = a.geometry;
  checkLaunchSizes("QRNN pooling", g.length, g.batch, g.hidden_size);
  const int64_t cols = g.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const QrnnInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.c0),
                           static_cast<const T*>(a.zoneout), a.mask_pad};
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, qrnnForwardKernel<T>)(
        in, static_cast<T*>(a.h), static_cast<T*>(a.c), static_cast<T*>(a.last_c), g.length,
        g.batch, g.hidden_size, g.output_gate);
  });
  throwIfLaunchFailed("the QRNN pooling forward kernel");
}

void launchQrnnPoolingBackward(const QrnnCudaBackwardArgs& a, Stream stream) {
  const QrnnCudaGeometry& g = a.geometry;
  checkLaunchSizes("QRNN pooling", g.length, g.batch, g.hidden_size);
  const int64_t cols = g.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const QrnnInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.c0),
                           static_cast<const T*>(a.zoneout), a.mask_pad};
    const QrnnGradients<T> grads{static_cast<const T*>(a.c), static_cast<const T*>(a.grad_h),
                                 static_cast<const T*>(a.grad_last_c),
                                 static_cast<T*>(a.grad_u), static_cast<T*>(a.grad_c0)};
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, qrnnBackwardKernel<T>)(
        in, grads, g.length, g.batch, g.hidden_size, g.output_gate);
  });
  throwIfLaunchFailed("the QRNN pooling backward kernel");
}

}  // namespace recurlab::kernels::cuda
