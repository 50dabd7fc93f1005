#include "kernels/rational_recurrence.h"

#include <torch/torch.h>

#include <limits>
#include <type_traits>

#include "kernels/cpu/column_blocks.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/kernel_results.h"

namespace recurlab::kernels {
namespace {

using detail::ColumnBlocks;
using detail::ColumnRun;
using detail::dataOrNull;
using detail::kBlock;
using detail::sigmoid;
using torch::Tensor;

// The two semirings as compile-time policies: values, and the local derivatives that route
// the gradient. For max, plusPicksFirst(a, b) tells which operand won (ties: the first).
template <typename T, bool MaxPlus>
struct SemiringOps {
  static T zero() { return MaxPlus ? -std::numeric_limits<T>::infinity() : T(0); }
  static T gate(T pre) { return MaxPlus ? detail::logSigmoid(pre) : sigmoid(pre); }
  // d gate / d pre-activation, from the pre-activation.
  static T gateGrad(T pre) {
    const T s = sigmoid(pre);
    return MaxPlus ? T(1) - s : s * (T(1) - s);
  }
  static T plus(T a, T b) { return MaxPlus ? (a >= b ? a : b) : a + b; }
  static bool plusPicksFirst(T a, T b) { return a >= b; }
  static T times(T a, T b) { return MaxPlus ? a + b : a * b; }
};

struct Geometry {
  int64_t L, B, d, k, S;
  RationalPattern pattern;
  bool gate;
  ColumnBlocks blocks() const { return {B, d}; }
};

template <typename T>
struct Inputs {
  const T* u;
  const T* weight;  // pre-activations [b_r | b_p1 | b_p2] (pattern F)
  const T* c0;
  const uint8_t* pad;
};

// Gate values of one unit at one step.
template <typename T, bool MaxPlus>
struct StepValues {
  T f[2], w[2], o;
};

template <typename T, bool MaxPlus, int64_t S, bool Gate>
inline StepValues<T, MaxPlus> stepValues(const T* ui) {
  using Ops = SemiringOps<T, MaxPlus>;
  // No loop over the states: an inner loop would stop the vectorizer of the loop over units.
  StepValues<T, MaxPlus> v{};
  v.f[0] = Ops::gate(ui[S]);
  v.w[0] = MaxPlus ? ui[0] : (T(1) - sigmoid(ui[S])) * ui[0];
  if constexpr (S == 2) {
    v.f[1] = Ops::gate(ui[S + 1]);
    v.w[1] = MaxPlus ? ui[1] : (T(1) - sigmoid(ui[S + 1])) * ui[1];
  }
  v.o = Gate ? Ops::gate(ui[2 * S]) : T(0);
  return v;
}

template <typename T, bool MaxPlus, RationalPattern P, bool Gate>
RECURLAB_SIMD_CLONES void forwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                     T* __restrict h, T* __restrict c, T* __restrict last_c) {
  using Ops = SemiringOps<T, MaxPlus>;
  constexpr int64_t S = P == RationalPattern::B ? 1 : 2;
  constexpr bool isF = P == RationalPattern::F;
  const int64_t k = g.k, n = r.n, d = g.d, sd = S * g.d;
  const int64_t s0 = r.b * sd + r.j0;  // state columns of c0 / last_c
  T c1[kBlock], c2[kBlock];
  for (int64_t i = 0; i < n; ++i) {
    c1[i] = in.c0 ? in.c0[s0 + i] : Ops::zero();
    c2[i] = (S == 2 && in.c0) ? in.c0[s0 + d + i] : Ops::zero();
  }
  T fr[kBlock] = {}, fp1[kBlock] = {}, fp2[kBlock] = {};
  if constexpr (isF) {
    for (int64_t i = 0; i < n; ++i) {
      fr[i] = Ops::gate(in.weight[r.j0 + i]);
      fp1[i] = Ops::gate(in.weight[d + r.j0 + i]);
      fp2[i] = Ops::gate(in.weight[2 * d + r.j0 + i]);
    }
  }
  for (int64_t t = 0; t < g.L; ++t) {
    const int64_t hrow = (t * g.B + r.b) * d + r.j0;
    const int64_t crow = (t * g.B + r.b) * sd + r.j0;
    T* __restrict hr = h + hrow;
    T* __restrict cr1 = c + crow;
    T* __restrict cr2 = c + crow + (S == 2 ? d : 0);
    if (in.pad && in.pad[t * g.B + r.b]) {
      for (int64_t i = 0; i < n; ++i) {
        cr1[i] = c1[i];
        if (S == 2) cr2[i] = c2[i];
        hr[i] = T(0);
      }
      continue;
    }
    const T* __restrict ur = in.u + hrow * k;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const auto v = stepValues<T, MaxPlus, S, Gate>(ur + i * k);
      const T n1 = Ops::plus(Ops::times(v.f[0], c1[i]), v.w[0]);
      T out = n1;
      if constexpr (S == 2) {
        T e = c1[i];
        if constexpr (isF) e = Ops::plus(e, fr[i]);
        const T n2 = Ops::plus(Ops::times(v.f[1], c2[i]), Ops::times(e, v.w[1]));
        out = n2;
        if constexpr (isF) out = Ops::plus(Ops::times(fp1[i], n1), Ops::times(fp2[i], n2));
        c2[i] = n2;
        cr2[i] = n2;
      }
      c1[i] = n1;
      cr1[i] = n1;
      hr[i] = vtanh(Gate ? Ops::times(v.o, out) : out);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    last_c[s0 + i] = c1[i];
    if (S == 2) last_c[s0 + d + i] = c2[i];
  }
}

template <typename T, bool MaxPlus, RationalPattern P, bool Gate>
void forwardKernel(const Geometry& g, const Inputs<T>& in, T* h, T* c, T* last_c) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      forwardRun<T, MaxPlus, P, Gate>(g, in, cb.at(run), h, c, last_c);
  });
}

// Gradient of the product a ⊗ b for upstream g: (d/da, d/db).
template <typename T, bool MaxPlus>
inline void timesGrad(T g, T a, T b, T& ga, T& gb) {
  ga = MaxPlus ? g : g * b;
  gb = MaxPlus ? g : g * a;
}

// Gradient of the sum a ⊕ b for upstream g: the max routes everything to the winner (a
// select, so the loop stays branch-free).
template <typename T, bool MaxPlus>
inline void plusGrad(T g, T a, T b, T& ga, T& gb) {
  if constexpr (!MaxPlus) {
    ga = g;
    gb = g;
  } else {
    const bool first = SemiringOps<T, MaxPlus>::plusPicksFirst(a, b);
    ga = first ? g : T(0);
    gb = first ? T(0) : g;
  }
}

// Gradients of the pre-activations u_z and u_f of one state from those of w and f.
template <typename T, bool MaxPlus>
inline void stateGrads(T d_w, T d_f, T z, T fpre, T& g_z, T& g_f) {
  if constexpr (MaxPlus) {
    g_z = d_w;
    g_f = d_f * SemiringOps<T, MaxPlus>::gateGrad(fpre);
  } else {
    // w = (1 - σ(fpre)) · z, f = σ(fpre): both depend on fpre.
    const T sf = sigmoid(fpre);
    g_z = d_w * (T(1) - sf);
    g_f = (d_f - d_w * z) * sf * (T(1) - sf);
  }
}

// Per-column parameter gradients (pattern F) go to col_grad (3, B, d) in double and are summed
// over the batch in fixed order afterwards: no atomics, deterministic for any thread count.
template <typename T, bool MaxPlus, RationalPattern P, bool Gate>
RECURLAB_SIMD_CLONES void backwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                      const T* __restrict grad_h,
                                      const T* __restrict grad_last_c, const T* __restrict c,
                                      T* __restrict grad_u, T* __restrict grad_c0,
                                      double* __restrict col_grad) {
  using Ops = SemiringOps<T, MaxPlus>;
  constexpr int64_t S = P == RationalPattern::B ? 1 : 2;
  constexpr bool isF = P == RationalPattern::F;
  const int64_t k = g.k, n = r.n, d = g.d, sd = S * g.d;
  const int64_t s0 = r.b * sd + r.j0;
  T g1[kBlock], g2[kBlock], zeros[kBlock], init1[kBlock], init2[kBlock];
  double acc0[kBlock], acc1[kBlock], acc2[kBlock];
  for (int64_t i = 0; i < n; ++i) {
    g1[i] = grad_last_c ? grad_last_c[s0 + i] : T(0);
    g2[i] = (S == 2 && grad_last_c) ? grad_last_c[s0 + d + i] : T(0);
    zeros[i] = T(0);
    init1[i] = in.c0 ? in.c0[s0 + i] : Ops::zero();
    init2[i] = (S == 2 && in.c0) ? in.c0[s0 + d + i] : Ops::zero();
    acc0[i] = acc1[i] = acc2[i] = 0.0;
  }
  T fr[kBlock] = {}, fp1[kBlock] = {}, fp2[kBlock] = {};
  T dgr[kBlock] = {}, dgp1[kBlock] = {}, dgp2[kBlock] = {};
  if constexpr (isF) {
    for (int64_t i = 0; i < n; ++i) {
      fr[i] = Ops::gate(in.weight[r.j0 + i]);
      fp1[i] = Ops::gate(in.weight[d + r.j0 + i]);
      fp2[i] = Ops::gate(in.weight[2 * d + r.j0 + i]);
      dgr[i] = Ops::gateGrad(in.weight[r.j0 + i]);
      dgp1[i] = Ops::gateGrad(in.weight[d + r.j0 + i]);
      dgp2[i] = Ops::gateGrad(in.weight[2 * d + r.j0 + i]);
    }
  }
  for (int64_t t = g.L - 1; t >= 0; --t) {
    if (in.pad && in.pad[t * g.B + r.b]) continue;  // state gradients pass unchanged
    const int64_t hrow = (t * g.B + r.b) * d + r.j0;
    const int64_t crow = (t * g.B + r.b) * sd + r.j0;
    const T* __restrict cp1 = t > 0 ? c + crow - g.B * sd : init1;
    const T* __restrict cp2 = t > 0 ? c + crow - g.B * sd + (S == 2 ? d : 0) : init2;
    const T* __restrict ct1 = c + crow;
    const T* __restrict ct2 = c + crow + (S == 2 ? d : 0);
    const T* __restrict dhr = grad_h ? grad_h + hrow : zeros;
    const T* __restrict ur = in.u + hrow * k;
    T* __restrict gur = grad_u + hrow * k;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T* ui = ur + i * k;
      T* gui = gur + i * k;
      const auto v = stepValues<T, MaxPlus, S, Gate>(ui);
      const T c1p = cp1[i];
      const T c1t = ct1[i];
      T c2p = T(0), c2t = T(0), e = c1p, rr = T(0), p1 = T(0), p2 = T(0);
      T out = c1t;
      if constexpr (S == 2) {
        c2p = cp2[i];
        c2t = ct2[i];
        out = c2t;
        if constexpr (isF) {
          rr = fr[i];
          p1 = fp1[i];
          p2 = fp2[i];
          e = Ops::plus(c1p, rr);
          out = Ops::plus(Ops::times(p1, c1t), Ops::times(p2, c2t));
        }
      }
      // h = tanh(o ⊗ out) or tanh(out)
      const T pre_h = Gate ? Ops::times(v.o, out) : out;
      const T th = vtanh(pre_h);
      const T da = dhr[i] * (T(1) - th * th);
      T d_out = da;
      if constexpr (Gate) {
        T d_o;
        timesGrad<T, MaxPlus>(da, v.o, out, d_o, d_out);
        gui[2 * S] = d_o * Ops::gateGrad(ui[2 * S]);
      }
      T dc1 = g1[i], dc2 = g2[i];
      if constexpr (S == 1) {
        dc1 += d_out;
      } else if constexpr (!isF) {
        dc2 += d_out;
      } else {
        T dA, dB, dp1, dp2, dn1, dn2;
        plusGrad<T, MaxPlus>(d_out, Ops::times(p1, c1t), Ops::times(p2, c2t), dA, dB);
        timesGrad<T, MaxPlus>(dA, p1, c1t, dp1, dn1);
        timesGrad<T, MaxPlus>(dB, p2, c2t, dp2, dn2);
        dc1 += dn1;
        dc2 += dn2;
        acc1[i] += static_cast<double>(dp1 * dgp1[i]);
        acc2[i] += static_cast<double>(dp2 * dgp2[i]);
      }
      T d_w[2] = {T(0), T(0)}, d_f[2] = {T(0), T(0)};
      T d_c1p = T(0), d_c2p = T(0);
      if constexpr (S == 2) {
        // c2 = f2 ⊗ c2p ⊕ e ⊗ w2
        T dA, dB, de;
        plusGrad<T, MaxPlus>(dc2, Ops::times(v.f[1], c2p), Ops::times(e, v.w[1]), dA, dB);
        timesGrad<T, MaxPlus>(dA, v.f[1], c2p, d_f[1], d_c2p);
        timesGrad<T, MaxPlus>(dB, e, v.w[1], de, d_w[1]);
        if constexpr (isF) {
          T dr;
          plusGrad<T, MaxPlus>(de, c1p, rr, d_c1p, dr);
          acc0[i] += static_cast<double>(dr * dgr[i]);
        } else {
          d_c1p = de;
        }
      }
      {  // c1 = f1 ⊗ c1p ⊕ w1
        T dA, dc1p;
        plusGrad<T, MaxPlus>(dc1, Ops::times(v.f[0], c1p), v.w[0], dA, d_w[0]);
        timesGrad<T, MaxPlus>(dA, v.f[0], c1p, d_f[0], dc1p);
        d_c1p += dc1p;
      }
      // Per state (written out, no inner loop): gradients of u_zs and u_fs.
      stateGrads<T, MaxPlus>(d_w[0], d_f[0], ui[0], ui[S], gui[0], gui[S]);
      if constexpr (S == 2)
        stateGrads<T, MaxPlus>(d_w[1], d_f[1], ui[1], ui[S + 1], gui[1], gui[S + 1]);
      g1[i] = d_c1p;
      g2[i] = d_c2p;
    }
  }
  const int64_t cols = g.B * d, col0 = r.b * d + r.j0;
  for (int64_t i = 0; i < n; ++i) {
    grad_c0[s0 + i] = g1[i];
    if (S == 2) grad_c0[s0 + d + i] = g2[i];
    if (col_grad) {
      col_grad[0 * cols + col0 + i] = acc0[i];
      col_grad[1 * cols + col0 + i] = acc1[i];
      col_grad[2 * cols + col0 + i] = acc2[i];
    }
  }
}

template <typename T, bool MaxPlus, RationalPattern P, bool Gate>
void backwardKernel(const Geometry& g, const Inputs<T>& in, const T* grad_h,
                    const T* grad_last_c, const T* c, T* grad_u, T* grad_c0, double* col_grad) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      backwardRun<T, MaxPlus, P, Gate>(g, in, cb.at(run), grad_h, grad_last_c, c, grad_u,
                                       grad_c0, col_grad);
  });
}

// Calls fn(semiring_tag, pattern_tag, gate_tag) with the run-time options as compile-time
// constants.
template <typename Fn>
void dispatchOptions(const RationalRecurrenceOptions& opt, Fn&& fn) {
  auto withGate = [&](auto semiring_tag, auto pattern_tag) {
    if (opt.output_gate)
      fn(semiring_tag, pattern_tag, std::true_type{});
    else
      fn(semiring_tag, pattern_tag, std::false_type{});
  };
  auto withPattern = [&](auto semiring_tag) {
    using PT = RationalPattern;
    switch (opt.pattern) {
      case PT::B: withGate(semiring_tag, std::integral_constant<PT, PT::B>{}); break;
      case PT::C: withGate(semiring_tag, std::integral_constant<PT, PT::C>{}); break;
      case PT::F: withGate(semiring_tag, std::integral_constant<PT, PT::F>{}); break;
    }
  };
  if (opt.semiring == Semiring::MaxPlus)
    withPattern(std::true_type{});
  else
    withPattern(std::false_type{});
}

Geometry geometryOf(const Tensor& u, const RationalRecurrenceOptions& opt) {
  return {u.size(0),       u.size(1),   opt.hidden_size, opt.numMatrices(),
          opt.numStates(), opt.pattern, opt.output_gate};
}

template <typename T>
Inputs<T> inputsOf(const detail::RationalRecurrenceTensors& in) {
  return {in.u.data_ptr<T>(), dataOrNull<T>(in.weight), dataOrNull<T>(in.c0),
          detail::padBytes(in.mask_pad)};
}

}  // namespace

RationalForwardResult detail::rationalRecurrenceCpuForward(
    const detail::RationalRecurrenceTensors& in_t, const RationalRecurrenceOptions& opt) {
  const Tensor& u = in_t.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyForwardResult<RationalForwardResult>(u, g.d, g.S * g.d);
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "rational_recurrence_forward", [&] {
    const auto in = inputsOf<scalar_t>(in_t);
    auto* h = res.h.data_ptr<scalar_t>();
    auto* c = res.c.data_ptr<scalar_t>();
    auto* last = res.last_c.data_ptr<scalar_t>();
    dispatchOptions(opt, [&](auto mp, auto pattern, auto gate) {
      forwardKernel<scalar_t, decltype(mp)::value, decltype(pattern)::value,
                    decltype(gate)::value>(g, in, h, c, last);
    });
  });
  return res;
}

RationalBackwardResult detail::rationalRecurrenceCpuBackward(
    const detail::BackwardTensors& grads, const detail::RationalRecurrenceTensors& in_t,
    const RationalRecurrenceOptions& opt) {
  const Tensor& u = in_t.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyBackwardResult<RationalBackwardResult>(u, g.S * g.d);
  res.grad_u.zero_();  // pad steps keep zeros
  const bool isF = opt.pattern == RationalPattern::F;
  Tensor col_grad;
  if (isF) col_grad = torch::empty({3, g.B, g.d}, u.options().dtype(torch::kDouble));
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "rational_recurrence_backward", [&] {
    const auto in = inputsOf<scalar_t>(in_t);
    const auto* gh = dataOrNull<scalar_t>(grads.grad_h);
    const auto* glc = dataOrNull<scalar_t>(grads.grad_last_c);
    const auto* cs = grads.c.data_ptr<scalar_t>();
    auto* gu = res.grad_u.data_ptr<scalar_t>();
    auto* gc0 = res.grad_c0.data_ptr<scalar_t>();
    double* cg = isF ? col_grad.data_ptr<double>() : nullptr;
    dispatchOptions(opt, [&](auto mp, auto pattern, auto gate) {
      backwardKernel<scalar_t, decltype(mp)::value, decltype(pattern)::value,
                     decltype(gate)::value>(g, in, gh, glc, cs, gu, gc0, cg);
    });
  });
  // Rows d b_r, d b_p1, d b_p2: the layout of weight.
  if (isF) res.grad_weight = detail::sumOverBatch(col_grad).view({3 * g.d}).to(u.scalar_type());
  return res;
}

}  // namespace recurlab::kernels
