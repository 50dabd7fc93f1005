#include "kernels/ngram_recurrence.h"

#include <torch/torch.h>

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
using torch::Tensor;

constexpr int64_t kMaxN = kMaxNgramOrder;

struct Geometry {
  int64_t L, B, d, k, n;
  bool gate;
  ColumnBlocks blocks() const { return {B, d}; }
};

template <typename T>
struct Inputs {
  const T* u;
  const T* c0;
  const uint8_t* pad;
};

template <typename T, int64_t N, bool Gate>
RECURLAB_SIMD_CLONES void forwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                     T* __restrict h, T* __restrict c, T* __restrict last_c) {
  const int64_t k = g.k, n = r.n, d = g.d, nd = N * g.d;
  const int64_t s0 = r.b * nd + r.j0;
  T state[kMaxN][kBlock];
  for (int64_t j = 0; j < N; ++j)
    for (int64_t i = 0; i < n; ++i) state[j][i] = in.c0 ? in.c0[s0 + j * d + i] : T(0);
  for (int64_t t = 0; t < g.L; ++t) {
    const int64_t hrow = (t * g.B + r.b) * d + r.j0;
    const int64_t crow = (t * g.B + r.b) * nd + r.j0;
    T* __restrict hr = h + hrow;
    T* __restrict cr = c + crow;
    if (in.pad && in.pad[t * g.B + r.b]) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < N; ++j) cr[j * d + i] = state[j][i];
        hr[i] = T(0);
      }
      continue;
    }
    const T* __restrict ur = in.u + hrow * k;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T* ui = ur + i * k;
      const T f = vsigmoid(ui[N]);
      // Highest order first: c^(j) reads c^(j-1) of the previous step.
      for (int64_t j = N - 1; j >= 0; --j) {
        const T below = j == 0 ? T(1) : state[j == 0 ? 0 : j - 1][i];
        state[j][i] = f * state[j][i] + below * (T(1) - f) * ui[j];
        cr[j * d + i] = state[j][i];
      }
      const T top = state[N - 1][i];
      T pre = top;
      if constexpr (Gate) pre = vsigmoid(ui[N + 1]) * top;
      hr[i] = vtanh(pre);
    }
  }
  for (int64_t j = 0; j < N; ++j)
    for (int64_t i = 0; i < n; ++i) last_c[s0 + j * d + i] = state[j][i];
}

template <typename T, int64_t N, bool Gate>
void forwardKernel(const Geometry& g, const Inputs<T>& in, T* h, T* c, T* last_c) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      forwardRun<T, N, Gate>(g, in, cb.at(run), h, c, last_c);
  });
}

template <typename T, int64_t N, bool Gate>
RECURLAB_SIMD_CLONES void backwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                      const T* __restrict grad_h,
                                      const T* __restrict grad_last_c, const T* __restrict c,
                                      T* __restrict grad_u, T* __restrict grad_c0) {
  const int64_t k = g.k, n = r.n, d = g.d, nd = N * g.d;
  const int64_t s0 = r.b * nd + r.j0;
  T gs[kMaxN][kBlock], init[kMaxN * kBlock], zeros[kBlock];
  for (int64_t i = 0; i < n; ++i) zeros[i] = T(0);
  // The states before step 0, laid out like one row of c (stride d between orders).
  for (int64_t j = 0; j < N; ++j)
    for (int64_t i = 0; i < n; ++i) {
      gs[j][i] = grad_last_c ? grad_last_c[s0 + j * d + i] : T(0);
      init[j * kBlock + i] = in.c0 ? in.c0[s0 + j * d + i] : T(0);
    }
  for (int64_t t = g.L - 1; t >= 0; --t) {
    if (in.pad && in.pad[t * g.B + r.b]) continue;  // state gradients pass unchanged
    const int64_t hrow = (t * g.B + r.b) * d + r.j0;
    const int64_t crow = (t * g.B + r.b) * nd + r.j0;
    const T* __restrict cprev = t > 0 ? c + crow - g.B * nd : init;
    const int64_t pstride = t > 0 ? d : kBlock;
    const T* __restrict top_r = c + crow + (N - 1) * d;
    const T* __restrict dhr = grad_h ? grad_h + hrow : zeros;
    const T* __restrict ur = in.u + hrow * k;
    T* __restrict gur = grad_u + hrow * k;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T* ui = ur + i * k;
      T* gui = gur + i * k;
      const T f = vsigmoid(ui[N]);
      T prev[kMaxN], gc[kMaxN];
      for (int64_t j = 0; j < N; ++j) {
        prev[j] = cprev[j * pstride + i];
        gc[j] = gs[j][i];
      }
      const T top = top_r[i];
      const T dh = dhr[i];
      if constexpr (Gate) {
        const T o = vsigmoid(ui[N + 1]);
        const T th = vtanh(o * top);
        const T da = dh * (T(1) - th * th);
        gc[N - 1] += da * o;
        gui[N + 1] = da * top * o * (T(1) - o);
      } else {
        const T th = vtanh(top);
        gc[N - 1] += dh * (T(1) - th * th);
      }
      T d_f = T(0);
      for (int64_t j = 0; j < N; ++j) {
        const T below = j == 0 ? T(1) : prev[j == 0 ? 0 : j - 1];
        const T d_w = gc[j] * below;
        d_f += gc[j] * prev[j] - d_w * ui[j];  // w = (1 - f)·z also depends on f
        gui[j] = d_w * (T(1) - f);
        // dL/dc^(j)_{t-1}: through its own carry and through c^(j+1)'s input.
        gs[j][i] = gc[j] * f + (j + 1 < N ? gc[j + 1 < N ? j + 1 : j] * (T(1) - f) *
                                                ui[j + 1 < N ? j + 1 : j]
                                          : T(0));
      }
      gui[N] = d_f * f * (T(1) - f);
    }
  }
  for (int64_t j = 0; j < N; ++j)
    for (int64_t i = 0; i < n; ++i) grad_c0[s0 + j * d + i] = gs[j][i];
}

template <typename T, int64_t N, bool Gate>
void backwardKernel(const Geometry& g, const Inputs<T>& in, const T* grad_h,
                    const T* grad_last_c, const T* c, T* grad_u, T* grad_c0) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      backwardRun<T, N, Gate>(g, in, cb.at(run), grad_h, grad_last_c, c, grad_u, grad_c0);
  });
}

// Calls fn(order_tag, gate_tag) with the run-time options as compile-time constants.
template <typename Fn>
void dispatchOrderAndGate(int64_t n, bool gate, Fn&& fn) {
  auto withGate = [&](auto order_tag) {
    if (gate)
      fn(order_tag, std::true_type{});
    else
      fn(order_tag, std::false_type{});
  };
  static_assert(kMaxN == 4, "dispatchOrderAndGate lists the orders 1..kMaxN");
  switch (n) {
    case 1: withGate(std::integral_constant<int64_t, 1>{}); break;
    case 2: withGate(std::integral_constant<int64_t, 2>{}); break;
    case 3: withGate(std::integral_constant<int64_t, 3>{}); break;
    default: withGate(std::integral_constant<int64_t, 4>{}); break;
  }
}

Geometry geometryOf(const Tensor& u, const NgramRecurrenceOptions& opt) {
  return {u.size(0), u.size(1), opt.hidden_size, opt.numMatrices(), opt.n, opt.output_gate};
}

template <typename T>
Inputs<T> inputsOf(const detail::NgramRecurrenceTensors& in) {
  return {in.u.data_ptr<T>(), dataOrNull<T>(in.c0), detail::padBytes(in.mask_pad)};
}

}  // namespace

NgramForwardResult detail::ngramRecurrenceCpuForward(const detail::NgramRecurrenceTensors& in,
                                                     const NgramRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyForwardResult<NgramForwardResult>(u, g.d, g.n * g.d);
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "ngram_recurrence_forward", [&] {
    dispatchOrderAndGate(g.n, g.gate, [&](auto order, auto gate) {
      forwardKernel<scalar_t, decltype(order)::value, decltype(gate)::value>(
          g, inputsOf<scalar_t>(in), res.h.data_ptr<scalar_t>(),
          res.c.data_ptr<scalar_t>(), res.last_c.data_ptr<scalar_t>());
    });
  });
  return res;
}

NgramBackwardResult detail::ngramRecurrenceCpuBackward(const detail::BackwardTensors& grads,
                                                       const detail::NgramRecurrenceTensors& in,
                                                       const NgramRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyBackwardResult<NgramBackwardResult>(u, g.n * g.d);
  res.grad_u.zero_();  // pad steps keep zeros
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "ngram_recurrence_backward", [&] {
    dispatchOrderAndGate(g.n, g.gate, [&](auto order, auto gate) {
      backwardKernel<scalar_t, decltype(order)::value, decltype(gate)::value>(
          g, inputsOf<scalar_t>(in), dataOrNull<scalar_t>(grads.grad_h),
          dataOrNull<scalar_t>(grads.grad_last_c), grads.c.data_ptr<scalar_t>(),
          res.grad_u.data_ptr<scalar_t>(), res.grad_c0.data_ptr<scalar_t>());
    });
  });
  return res;
}

}  // namespace recurlab::kernels
