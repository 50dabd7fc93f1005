// The SRU elementwise recurrence on CUDA: the twin of kernels/cpu/sru_recurrence.cpp, with the
// same layouts and the same arithmetic in the same order (so float agrees to rounding).
//
// One thread per (batch, unit) column: it keeps c in a register and walks time (backwards for
// the second direction). Consecutive threads are consecutive units, so reads of x, c, h and the
// k interleaved values of U are coalesced across a warp. Each thread loads kStepsInFlight time
// steps at once before computing them one after the other, so one memory latency covers several
// steps (the loop is latency bound: there are only B·out threads).
#include "kernels/cuda/sru_recurrence_launch.h"

#include "kernels/cuda/batch_sum_launch.h"
#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

template <typename T>
struct SruInputs {
  const T* __restrict__ u;
  const T* __restrict__ x;
  const T* __restrict__ weight_c;
  const T* __restrict__ bias;
  const T* __restrict__ c0;
  const T* __restrict__ mask_c;
  const uint8_t* __restrict__ mask_pad;
};

// Where one column lives and how it walks time.
struct SruColumn {
  int64_t col;        // b·out + j: the offset of (t = 0, b, j) in an (L, B, out) tensor
  int64_t unit;       // j in [0, out)
  int64_t first;      // offset of the column's first step (t = 0, or L-1 when flipped)
  int64_t stride;     // offset change per step: ±B·out
  int64_t pad_first;  // the same two for mask_pad (L, B)
  int64_t pad_stride;
};

__device__ __forceinline__ SruColumn columnAt(int64_t col, int64_t L, int64_t B, int64_t d,
                                              int64_t out) {
  const int64_t b = col / out, j = col - b * out;
  const bool flip = j >= d;
  const int64_t t0 = flip ? L - 1 : 0;
  return {col, j, t0 * B * out + col, flip ? -B * out : B * out, t0 * B + b, flip ? -B : B};
}

// What one step reads, converted to the accumulator type.
template <typename A>
struct SruStep {
  A u0, u1, u2, skip;  // skip = α·x, u3 or 0
  bool pad;
};

template <typename T>
__device__ __forceinline__ SruStep<AccOf<T>> loadStep(const SruInputs<T>& in, int64_t off,
                                                      int64_t pad_off, int k, SruCudaSkip skip,
                                                      AccOf<T> alpha) {
  using A = AccOf<T>;
  const T* ui = in.u + off * k;
  SruStep<A> s;
  s.u0 = toAcc(ui[0]);
  s.u1 = toAcc(ui[1]);
  s.u2 = toAcc(ui[2]);
  s.skip = skip == SruCudaSkip::ScaledInput         ? alpha * toAcc(in.x[off])
           : skip == SruCudaSkip::LearnedProjection ? toAcc(ui[3])
                                                    : A(0);
  s.pad = in.mask_pad && in.mask_pad[pad_off];
  return s;
}

template <typename T>
__global__ void sruForwardKernel(SruInputs<T> in, T* __restrict__ h, T* __restrict__ c,
                                 T* __restrict__ last_c, int64_t L, int64_t B, int64_t d,
                                 int64_t out, SruCudaSkip skip, AccOf<T> alpha) {
  using A = AccOf<T>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= B * out) return;
  const SruColumn cl = columnAt(col, L, B, d, out);
  const int k = skip == SruCudaSkip::LearnedProjection ? 4 : 3;
  const A vf = toAcc(in.weight_c[cl.unit]), vr = toAcc(in.weight_c[out + cl.unit]);
  const A bf = toAcc(in.bias[cl.unit]), br = toAcc(in.bias[out + cl.unit]);
  const A m = loadOr(in.mask_c, col, A(1));
  A state = loadOr(in.c0, col, A(0));
  int64_t off = cl.first, pad_off = cl.pad_first;
  for (int64_t s0 = 0; s0 < L; s0 += kStepsInFlight) {
    SruStep<A> steps[kStepsInFlight];
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q)
      if (s0 + q < L)
        steps[q] = loadStep(in, off + q * cl.stride, pad_off + q * cl.pad_stride, k, skip, alpha);
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q) {
      if (s0 + q >= L) break;
      const SruStep<A>& st = steps[q];
      const int64_t o = off + q * cl.stride;
      if (st.pad) {  // a pad step carries c and outputs 0
        storeAcc(c + o, state);
        storeAcc(h + o, A(0));
        continue;
      }
      const A f = sigmoidOf(st.u1 + vf * state + bf);
      const A r = sigmoidOf(st.u2 + vr * state + br);
      const A cn = (state - st.u0) * f + st.u0;
      storeAcc(h + o, (cn - st.skip) * m * r + st.skip);
      storeAcc(c + o, cn);
      state = cn;
    }
    off += kStepsInFlight * cl.stride;
    pad_off += kStepsInFlight * cl.pad_stride;
  }
  storeAcc(last_c + col, state);
}

template <typename T>
struct SruGradients {
  const T* __restrict__ c;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_c;
  T* __restrict__ grad_u;
  T* __restrict__ grad_x;
  T* __restrict__ grad_c0;
  AccOf<T>* __restrict__ column_grads;  // (4, B, out)
};

// Walks the column backwards in time, recomputing the gates from U and the saved c.
template <typename T>
__global__ void sruBackwardKernel(SruInputs<T> in, SruGradients<T> g, int64_t L, int64_t B,
                                  int64_t d, int64_t out, SruCudaSkip skip, AccOf<T> alpha) {
  using A = AccOf<T>;
  const int64_t cols = B * out;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  const SruColumn cl = columnAt(col, L, B, d, out);
  const int k = skip == SruCudaSkip::LearnedProjection ? 4 : 3;
  const A vf = toAcc(in.weight_c[cl.unit]), vr = toAcc(in.weight_c[out + cl.unit]);
  const A bf = toAcc(in.bias[cl.unit]), br = toAcc(in.bias[out + cl.unit]);
  const A m = loadOr(in.mask_c, col, A(1));
  const A c_init = loadOr(in.c0, col, A(0));
  A gc = loadOr(g.grad_last_c, col, A(0));  // dLoss/dc flowing back through time
  A acc_vf = 0, acc_vr = 0, acc_bf = 0, acc_br = 0;
  // Step s (walk order) sits at offset first + s·stride; start from the last one.
  int64_t off = cl.first + (L - 1) * cl.stride, pad_off = cl.pad_first + (L - 1) * cl.pad_stride;
  A ct = L > 0 ? toAcc(g.c[off]) : A(0);
  for (int64_t s0 = L - 1; s0 >= 0; s0 -= kStepsInFlight) {
    SruStep<A> steps[kStepsInFlight];
    A dh[kStepsInFlight], cprev[kStepsInFlight];
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q) {
      if (s0 - q < 0) continue;
      const int64_t o = off - q * cl.stride;
      steps[q] = loadStep(in, o, pad_off - q * cl.pad_stride, k, skip, alpha);
      dh[q] = loadOr(g.grad_h, o, A(0));
      cprev[q] = s0 - q > 0 ? toAcc(g.c[o - cl.stride]) : c_init;
    }
#pragma unroll
    for (int q = 0; q < kStepsInFlight; ++q) {
      if (s0 - q < 0) break;
      const SruStep<A>& st = steps[q];
      const int64_t o = off - q * cl.stride;
      T* gu = g.grad_u + o * k;
      const A cp = cprev[q];
      if (st.pad) {  // the gradient of c passes unchanged; nothing flows to u or x
        for (int i = 0; i < k; ++i) storeAcc(gu + i, A(0));
        if (skip == SruCudaSkip::ScaledInput) storeAcc(g.grad_x + o, A(0));
        ct = cp;
        continue;
      }
      const A f = sigmoidOf(st.u1 + vf * cp + bf);
      const A r = sigmoidOf(st.u2 + vr * cp + br);
      const A g_r = dh[q] * (ct - st.skip) * m * r * (A(1) - r);  // d/d(pre-activation of r)
      const A g_c = dh[q] * m * r + gc;
      const A g_f = g_c * (cp - st.u0) * f * (A(1) - f);  // d/d(pre-activation of f)
      storeAcc(gu + 0, g_c * (A(1) - f));
      storeAcc(gu + 1, g_f);
      storeAcc(gu + 2, g_r);
      const A g_skip = dh[q] * (A(1) - m * r);
      if (skip == SruCudaSkip::LearnedProjection) storeAcc(gu + 3, g_skip);
      if (skip == SruCudaSkip::ScaledInput) storeAcc(g.grad_x + o, g_skip * alpha);
      gc = g_c * f + g_f * vf + g_r * vr;
      acc_vf += g_f * cp;
      acc_vr += g_r * cp;
      acc_bf += g_f;
      acc_br += g_r;
      ct = cp;
    }
    off -= kStepsInFlight * cl.stride;
    pad_off -= kStepsInFlight * cl.pad_stride;
  }
  storeAcc(g.grad_c0 + col, gc);
  g.column_grads[0 * cols + col] = acc_vf;
  g.column_grads[1 * cols + col] = acc_vr;
  g.column_grads[2 * cols + col] = acc_bf;
  g.column_grads[3 * cols + col] = acc_br;
}

template <typename T>
SruInputs<T> inputsOf(const void* u, const void* x, const void* weight_c, const void* bias,
                      const void* c0, const void* mask_c, const uint8_t* mask_pad) {
  return {static_cast<const T*>(u),      static_cast<const T*>(x),
          static_cast<const T*>(weight_c), static_cast<const T*>(bias),
          static_cast<const T*>(c0),     static_cast<const T*>(mask_c),
          mask_pad};
}

}  // namespace

void launchSruForward(const SruCudaForwardArgs& a, Stream stream) {
  const SruCudaGeometry& g = a.geometry;
  checkLaunchSizes("SRU", g.length, g.batch, g.hidden_size);
  const int64_t cols = g.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, sruForwardKernel<T>)(
        inputsOf<T>(a.u, a.x, a.weight_c, a.bias, a.c0, a.mask_c, a.mask_pad),
        static_cast<T*>(a.h), static_cast<T*>(a.c), static_cast<T*>(a.last_c), g.length,
        g.batch, g.hidden_size, g.outputSize(), g.skip, static_cast<AccOf<T>>(a.alpha));
  });
  throwIfLaunchFailed("the SRU forward kernel");
}

namespace {

// The backward recurrence over cols = batch · columns > 0 columns; fills column_grads.
void launchSruBackwardColumns(const SruCudaBackwardArgs& a, int64_t cols, Stream stream) {
  const SruCudaGeometry& g = a.geometry;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    SruGradients<T> grads{static_cast<const T*>(a.c),
                          static_cast<const T*>(a.grad_h),
                          static_cast<const T*>(a.grad_last_c),
                          static_cast<T*>(a.grad_u),
                          static_cast<T*>(a.grad_x),
                          static_cast<T*>(a.grad_c0),
                          static_cast<AccOf<T>*>(a.column_grads)};
    RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream, sruBackwardKernel<T>)(
        inputsOf<T>(a.u, a.x, a.weight_c, a.bias, a.c0, a.mask_c, a.mask_pad), grads, g.length,
        g.batch, g.hidden_size, g.outputSize(), g.skip, static_cast<AccOf<T>>(a.alpha));
  });
  throwIfLaunchFailed("the SRU backward kernel");
}

}  // namespace

void launchSruBackward(const SruCudaBackwardArgs& a, Stream stream) {
  const SruCudaGeometry& g = a.geometry;
  checkLaunchSizes("SRU", g.length, g.batch, g.hidden_size);
  const int64_t cols = g.columns();
  if (cols > 0) launchSruBackwardColumns(a, cols, stream);
  // Also for an empty batch: the parameter gradients are then the sum of nothing, zeros (an
  // early return left the caller's uninitialized buffer as the gradient).
  launchSumOverBatch(a.column_grads, a.param_grads, 4, g.batch, g.outputSize(),
                     a.scalar == CudaScalar::Double, stream);
}

}  // namespace recurlab::kernels::cuda
