// The rational recurrences on CUDA: the twin of kernels/cpu/rational_recurrence.cpp, the same
// semiring-generic arithmetic in the same order, including the max-plus tie rule (max picks its
// first operand when a >= b and routes the whole gradient to it). One thread per (batch, unit)
// column with the states in registers; loads run kStepsInFlight steps ahead (device_math.cuh).
// Pattern F's weight gradients are summed per column, then over the batch (no atomics).
#include "kernels/cuda/rational_recurrence_launch.h"

#include <cmath>

#include "kernels/cuda/batch_sum_launch.h"
#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

template <typename A, bool MaxPlus>
struct SemiringOps {
  static __device__ __forceinline__ A zero() { return MaxPlus ? A(-INFINITY) : A(0); }
  static __device__ __forceinline__ A gate(A pre) {
    return MaxPlus ? logSigmoidOf(pre) : sigmoidOf(pre);
  }
  // d gate / d pre-activation.
  static __device__ __forceinline__ A gateGrad(A pre) {
    const A s = sigmoidOf(pre);
    return MaxPlus ? A(1) - s : s * (A(1) - s);
  }
  static __device__ __forceinline__ A plus(A a, A b) { return MaxPlus ? (a >= b ? a : b) : a + b; }
  static __device__ __forceinline__ A times(A a, A b) { return MaxPlus ? a + b : a * b; }
};

// Gradient of a ⊗ b for upstream g.
template <typename A, bool MaxPlus>
__device__ __forceinline__ void timesGrad(A g, A a, A b, A& ga, A& gb) {
  ga = MaxPlus ? g : g * b;
  gb = MaxPlus ? g : g * a;
}

// Gradient of a ⊕ b for upstream g: the max routes all of it to the winner (ties: a).
template <typename A, bool MaxPlus>
__device__ __forceinline__ void plusGrad(A g, A a, A b, A& ga, A& gb) {
  if (!MaxPlus) {
    ga = g;
    gb = g;
  } else if (a >= b) {
    ga = g;
    gb = A(0);
  } else {
    ga = A(0);
    gb = g;
  }
}

template <typename T>
struct RationalInputs {
  const T* __restrict__ u;
  const T* __restrict__ weight;
  const T* __restrict__ c0;
  const uint8_t* __restrict__ mask_pad;
};

// Static shape of one launch.
struct RationalShape {
  int64_t L, B, d;
  int S, k;
  bool isF, gate;
};

// Pre-activations of one step, unpacked from [z, f, (o)] or [z1, z2, f1, f2, (o)] into fixed
// slots (register arrays must be indexed by constants, whatever S is).
template <typename A>
struct RationalStep {
  A z[2], fpre[2], opre;
  bool pad;
};

template <typename T>
__device__ __forceinline__ RationalStep<AccOf<T>> loadRationalStep(const RationalInputs<T>& in,
                                                                   const RationalShape& sh,
                                                                   int64_t hoff,
                                                                   int64_t pad_off) {
  using A = AccOf<T>;
  RationalStep<A> s;
  const T* ui = in.u + hoff * sh.k;
  const int S = sh.S;
  s.z[0] = toAcc(ui[0]);
  s.fpre[0] = toAcc(ui[S]);
  s.z[1] = S == 2 ? toAcc(ui[1]) : A(0);
  s.fpre[1] = S == 2 ? toAcc(ui[3]) : A(0);
  s.opre = sh.gate ? toAcc(ui[2 * S]) : A(0);
  s.pad = in.mask_pad && in.mask_pad[pad_off];
  return s;
}

// Gate values of one step (as the CPU kernel's stepValues).
template <typename A, bool MaxPlus>
struct GateValues {
  A f[2], w[2], o;
};

template <typename A, bool MaxPlus>
__device__ __forceinline__ GateValues<A, MaxPlus> gateValues(const RationalStep<A>& st, int S,
                                                             bool gate) {
  using Ops = SemiringOps<A, MaxPlus>;
  GateValues<A, MaxPlus> v{};
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    if (s >= S) break;
    v.f[s] = Ops::gate(st.fpre[s]);
    v.w[s] = MaxPlus ? st.z[s] : (A(1) - sigmoidOf(st.fpre[s])) * st.z[s];
  }
  v.o = gate ? Ops::gate(st.opre) : A(0);
  return v;
}

template <typename T, bool MaxPlus>
__global__ void rationalForwardKernel(RationalInputs<T> in, T* __restrict__ h,
                                      T* __restrict__ c, T* __restrict__ last_c,
                                      RationalShape sh) {
  using A = AccOf<T>;
  using Ops = SemiringOps<A, MaxPlus>;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= sh.B * sh.d) return;
  const int64_t b = col / sh.d, j = col - b * sh.d, d = sh.d, sd = sh.S * d;
  const int64_t s0 = b * sd + j;  // state columns of c0 / last_c / c within a row
  const int S = sh.S;
  A r = 0, p1 = 0, p2 = 0;
  if (sh.isF) {
    r = Ops::gate(toAcc(in.weight[j]));
    p1 = Ops::gate(toAcc(in.weight[d + j]));
    p2 = Ops::gate(toAcc(in.weight[2 * d + j]));
  }
  A c1 = in.c0 ? toAcc(in.c0[s0]) : Ops::zero();
  A c2 = (S == 2 && in.c0) ? toAcc(in.c0[s0 + d]) : Ops::zero();
  walkSteps(
      sh.L,
      [&](int64_t t) { return loadRationalStep(in, sh, t * sh.B * d + col, t * sh.B + b); },
      [&](int64_t t, const RationalStep<A>& st) {
        const int64_t hoff = t * sh.B * d + col, coff = t * sh.B * sd + s0;
        if (st.pad) {  // states carried, h = 0
          storeAcc(c + coff, c1);
          if (S == 2) storeAcc(c + coff + d, c2);
          storeAcc(h + hoff, A(0));
          return;
        }
        const auto v = gateValues<A, MaxPlus>(st, S, sh.gate);
        const A n1 = Ops::plus(Ops::times(v.f[0], c1), v.w[0]);
        A out = n1;
        if (S == 2) {
          A e = c1;
          if (sh.isF) e = Ops::plus(e, r);
          const A n2 = Ops::plus(Ops::times(v.f[1], c2), Ops::times(e, v.w[1]));
          out = n2;
          if (sh.isF) out = Ops::plus(Ops::times(p1, n1), Ops::times(p2, n2));
          c2 = n2;
          storeAcc(c + coff + d, n2);
        }
        c1 = n1;
        storeAcc(c + coff, n1);
        storeAcc(h + hoff, tanhOf(sh.gate ? Ops::times(v.o, out) : out));
      });
  storeAcc(last_c + s0, c1);
  if (S == 2) storeAcc(last_c + s0 + d, c2);
}

template <typename T>
struct RationalGradients {
  const T* __restrict__ c;
  const T* __restrict__ grad_h;
  const T* __restrict__ grad_last_c;
  T* __restrict__ grad_u;
  T* __restrict__ grad_c0;
  AccOf<T>* __restrict__ column_grads;  // (3, B, d), pattern F
};

template <typename A>
struct RationalBackStep {
  RationalStep<A> in;
  A dh, c1t, c2t, c1p, c2p;
};

template <typename T, bool MaxPlus>
__global__ void rationalBackwardKernel(RationalInputs<T> in, RationalGradients<T> g,
                                       RationalShape sh) {
  using A = AccOf<T>;
  using Ops = SemiringOps<A, MaxPlus>;
  const int64_t cols = sh.B * sh.d;
  const int64_t col = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (col >= cols) return;
  const int64_t b = col / sh.d, j = col - b * sh.d, d = sh.d, sd = sh.S * d;
  const int64_t s0 = b * sd + j, cstride = sh.B * sd;
  const int S = sh.S, k = sh.k;
  A r_pre = 0, p1_pre = 0, p2_pre = 0;
  if (sh.isF) {
    r_pre = toAcc(in.weight[j]);
    p1_pre = toAcc(in.weight[d + j]);
    p2_pre = toAcc(in.weight[2 * d + j]);
  }
  const A rr = sh.isF ? Ops::gate(r_pre) : A(0);
  const A p1 = sh.isF ? Ops::gate(p1_pre) : A(0);
  const A p2 = sh.isF ? Ops::gate(p2_pre) : A(0);
  const A c1_init = in.c0 ? toAcc(in.c0[s0]) : Ops::zero();
  const A c2_init = (S == 2 && in.c0) ? toAcc(in.c0[s0 + d]) : Ops::zero();
  A g1 = loadOr(g.grad_last_c, s0, A(0));
  A g2 = S == 2 ? loadOr(g.grad_last_c, s0 + d, A(0)) : A(0);
  A acc_r = 0, acc_p1 = 0, acc_p2 = 0;
  walkSteps(
      sh.L,
      [&](int64_t i) {
        const int64_t t = sh.L - 1 - i, hoff = t * sh.B * d + col, coff = t * cstride + s0;
        RationalBackStep<A> s;
        s.in = loadRationalStep(in, sh, hoff, t * sh.B + b);
        s.dh = loadOr(g.grad_h, hoff, A(0));
        s.c1t = toAcc(g.c[coff]);
        s.c2t = S == 2 ? toAcc(g.c[coff + d]) : A(0);
        s.c1p = t > 0 ? toAcc(g.c[coff - cstride]) : c1_init;
        s.c2p = S == 2 ? (t > 0 ? toAcc(g.c[coff - cstride + d]) : c2_init) : A(0);
        return s;
      },
      [&](int64_t i, const RationalBackStep<A>& s) {
        const int64_t t = sh.L - 1 - i, hoff = t * sh.B * d + col;
        T* gu = g.grad_u + hoff * k;
        if (s.in.pad) {  // state gradients pass unchanged; nothing flows to u
          for (int q = 0; q < k; ++q) storeAcc(gu + q, A(0));
          return;
        }
        const auto v = gateValues<A, MaxPlus>(s.in, S, sh.gate);
        const A c1p = s.c1p, c1t = s.c1t, c2p = s.c2p, c2t = s.c2t;
        A e = c1p, out = c1t;
        if (S == 2) {
          out = c2t;
          if (sh.isF) {
            e = Ops::plus(c1p, rr);
            out = Ops::plus(Ops::times(p1, c1t), Ops::times(p2, c2t));
          }
        }
        // h = tanh(o ⊗ out) or tanh(out)
        const A pre_h = sh.gate ? Ops::times(v.o, out) : out;
        const A th = tanhOf(pre_h);
        const A da = s.dh * (A(1) - th * th);
        A d_out = da;
        if (sh.gate) {
          A d_o;
          timesGrad<A, MaxPlus>(da, v.o, out, d_o, d_out);
          storeAcc(gu + 2 * S, d_o * Ops::gateGrad(s.in.opre));
        }
        A dc1 = g1, dc2 = g2;
        if (S == 1) {
          dc1 += d_out;
        } else if (!sh.isF) {
          dc2 += d_out;
        } else {
          A dA, dB, dp1, dp2, dn1, dn2;
          plusGrad<A, MaxPlus>(d_out, Ops::times(p1, c1t), Ops::times(p2, c2t), dA, dB);
          timesGrad<A, MaxPlus>(dA, p1, c1t, dp1, dn1);
          timesGrad<A, MaxPlus>(dB, p2, c2t, dp2, dn2);
          dc1 += dn1;
          dc2 += dn2;
          acc_p1 += dp1 * Ops::gateGrad(p1_pre);
          acc_p2 += dp2 * Ops::gateGrad(p2_pre);
        }
        A d_w[2] = {A(0), A(0)}, d_f[2] = {A(0), A(0)};
        A d_c1p = A(0), d_c2p = A(0);
        if (S == 2) {  // c2 = f2 ⊗ c2p ⊕ e ⊗ w2
          A dA, dB, de;
          plusGrad<A, MaxPlus>(dc2, Ops::times(v.f[1], c2p), Ops::times(e, v.w[1]), dA, dB);
          timesGrad<A, MaxPlus>(dA, v.f[1], c2p, d_f[1], d_c2p);
          timesGrad<A, MaxPlus>(dB, e, v.w[1], de, d_w[1]);
          if (sh.isF) {
            A dr;
            plusGrad<A, MaxPlus>(de, c1p, rr, d_c1p, dr);
            acc_r += dr * Ops::gateGrad(r_pre);
          } else {
            d_c1p = de;
          }
        }
        {  // c1 = f1 ⊗ c1p ⊕ w1
          A dA, dc1p;
          plusGrad<A, MaxPlus>(dc1, Ops::times(v.f[0], c1p), v.w[0], dA, d_w[0]);
          timesGrad<A, MaxPlus>(dA, v.f[0], c1p, d_f[0], dc1p);
          d_c1p += dc1p;
        }
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          if (q >= S) break;
          const A fpre = s.in.fpre[q];
          if (MaxPlus) {
            storeAcc(gu + q, d_w[q]);
            storeAcc(gu + S + q, d_f[q] * Ops::gateGrad(fpre));
          } else {  // w = (1 - σ(fpre)) · z and f = σ(fpre) both depend on fpre
            const A sf = sigmoidOf(fpre);
            storeAcc(gu + q, d_w[q] * (A(1) - sf));
            storeAcc(gu + S + q, (d_f[q] - d_w[q] * s.in.z[q]) * sf * (A(1) - sf));
          }
        }
        g1 = d_c1p;
        g2 = d_c2p;
      });
  storeAcc(g.grad_c0 + s0, g1);
  if (S == 2) storeAcc(g.grad_c0 + s0 + d, g2);
  if (sh.isF) {
    g.column_grads[0 * cols + col] = acc_r;
    g.column_grads[1 * cols + col] = acc_p1;
    g.column_grads[2 * cols + col] = acc_p2;
  }
}

RationalShape shapeOf(const RationalCudaGeometry& g) {
  checkLaunchSizes("rational recurrence", g.length, g.batch, g.hidden_size);
  return {g.length,
          g.batch,
          g.hidden_size,
          static_cast<int>(g.numStates()),
          static_cast<int>(g.numMatrices()),
          g.hasWeight(),
          g.output_gate};
}

// Calls f with std::true_type for max-plus, std::false_type for plus-times.
template <typename F>
void withSemiring(CudaSemiring s, F&& f) {
  if (s == CudaSemiring::MaxPlus)
    f(std::true_type{});
  else
    f(std::false_type{});
}

}  // namespace

void launchRationalRecurrenceForward(const RationalCudaForwardArgs& a, Stream stream) {
  const RationalShape sh = shapeOf(a.geometry);
  const int64_t cols = a.geometry.columns();
  if (cols == 0) return;
  const int threads = threadsPerBlockFor(cols);
  withElementType(a.scalar, [&](auto tag) {
    using T = decltype(tag);
    const RationalInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.weight),
                               static_cast<const T*>(a.c0), a.mask_pad};
    withSemiring(a.geometry.semiring, [&](auto max_plus) {
      constexpr bool kMaxPlus = decltype(max_plus)::value;
      RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream,
                      rationalForwardKernel<T, kMaxPlus>)(
          in, static_cast<T*>(a.h), static_cast<T*>(a.c), static_cast<T*>(a.last_c), sh);
    });
  });
  throwIfLaunchFailed("the rational recurrence forward kernel");
}

void launchRationalRecurrenceBackward(const RationalCudaBackwardArgs& a, Stream stream) {
  const RationalShape sh = shapeOf(a.geometry);
  const int64_t cols = a.geometry.columns();
  // An empty batch still owes the weight gradient: the batch sum below writes its zeros.
  if (cols > 0) {
    const int threads = threadsPerBlockFor(cols);
    withElementType(a.scalar, [&](auto tag) {
      using T = decltype(tag);
      const RationalInputs<T> in{static_cast<const T*>(a.u), static_cast<const T*>(a.weight),
                                 static_cast<const T*>(a.c0), a.mask_pad};
      const RationalGradients<T> grads{static_cast<const T*>(a.c),
                                       static_cast<const T*>(a.grad_h),
                                       static_cast<const T*>(a.grad_last_c),
                                       static_cast<T*>(a.grad_u),
                                       static_cast<T*>(a.grad_c0),
                                       static_cast<AccOf<T>*>(a.column_grads)};
      withSemiring(a.geometry.semiring, [&](auto max_plus) {
        constexpr bool kMaxPlus = decltype(max_plus)::value;
        RECURLAB_LAUNCH(blocksFor(cols, threads), threads, stream,
                        rationalBackwardKernel<T, kMaxPlus>)(in, grads, sh);
      });
    });
    throwIfLaunchFailed("the rational recurrence backward kernel");
  }
  if (a.geometry.hasWeight())
    launchSumOverBatch(a.column_grads, a.param_grads, 3, a.geometry.batch,
                       a.geometry.hidden_size, a.scalar == CudaScalar::Double, stream);
}

}  // namespace recurlab::kernels::cuda
