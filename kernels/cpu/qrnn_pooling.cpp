#include "kernels/qrnn_pooling.h"

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

struct Geometry {
  int64_t L, B, d, k;
  bool gate;
  ColumnBlocks blocks() const { return {B, d}; }
};

template <typename T>
struct Inputs {
  const T* u;
  const T* c0;
  const T* zoneout;
  const uint8_t* pad;
};

template <typename T, bool Gate, bool Zoneout>
RECURLAB_SIMD_CLONES void forwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                     T* __restrict h, T* __restrict c, T* __restrict last_c) {
  const int64_t k = g.k, n = r.n;
  const int64_t col0 = r.b * g.d + r.j0;
  T state[kBlock];
  for (int64_t i = 0; i < n; ++i) state[i] = in.c0 ? in.c0[col0 + i] : T(0);
  for (int64_t t = 0; t < g.L; ++t) {
    const int64_t row = (t * g.B + r.b) * g.d + r.j0;
    T* __restrict hr = h + row;
    T* __restrict cr = c + row;
    if (in.pad && in.pad[t * g.B + r.b]) {
      for (int64_t i = 0; i < n; ++i) {
        cr[i] = state[i];
        hr[i] = T(0);
      }
      continue;
    }
    const T* __restrict ur = in.u + row * k;
    const T* __restrict zr = Zoneout ? in.zoneout + row : nullptr;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T z = vtanh(ur[i * k]);
      const T f = vsigmoid(ur[i * k + 1]);
      T upd = T(1) - f;
      if constexpr (Zoneout) upd = upd * zr[i];
      const T cn = state[i] + upd * (z - state[i]);
      cr[i] = cn;
      T hv = cn;
      if constexpr (Gate) hv = vsigmoid(ur[i * k + 2]) * cn;
      hr[i] = hv;
      state[i] = cn;
    }
  }
  for (int64_t i = 0; i < n; ++i) last_c[col0 + i] = state[i];
}

template <typename T, bool Gate, bool Zoneout>
void forwardKernel(const Geometry& g, const Inputs<T>& in, T* h, T* c, T* last_c) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      forwardRun<T, Gate, Zoneout>(g, in, cb.at(run), h, c, last_c);
  });
}

template <typename T, bool Gate, bool Zoneout>
RECURLAB_SIMD_CLONES void backwardRun(const Geometry& g, const Inputs<T>& in, const ColumnRun r,
                                      const T* __restrict grad_h,
                                      const T* __restrict grad_last_c, const T* __restrict c,
                                      T* __restrict grad_u, T* __restrict grad_c0) {
  const int64_t k = g.k, n = r.n;
  const int64_t col0 = r.b * g.d + r.j0;
  T gstate[kBlock], zeros[kBlock];
  for (int64_t i = 0; i < n; ++i) {
    gstate[i] = grad_last_c ? grad_last_c[col0 + i] : T(0);
    zeros[i] = T(0);
  }
  const T* __restrict c0 = in.c0 ? in.c0 + col0 : zeros;
  for (int64_t t = g.L - 1; t >= 0; --t) {
    if (in.pad && in.pad[t * g.B + r.b]) continue;  // dL/dc passes unchanged
    const int64_t row = (t * g.B + r.b) * g.d + r.j0;
    const T* __restrict cprev = t > 0 ? c + row - g.B * g.d : c0;
    const T* __restrict ur = in.u + row * k;
    const T* __restrict ct = c + row;
    const T* __restrict dhr = grad_h ? grad_h + row : zeros;
    const T* __restrict zr = Zoneout ? in.zoneout + row : nullptr;
    T* __restrict gur = grad_u + row * k;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T cp = cprev[i];
      const T z = vtanh(ur[i * k]);
      const T f = vsigmoid(ur[i * k + 1]);
      T m = T(1);
      if constexpr (Zoneout) m = zr[i];
      const T upd = (T(1) - f) * m;
      const T dh = dhr[i];
      T g_c = gstate[i];
      if constexpr (Gate) {
        const T o = vsigmoid(ur[i * k + 2]);
        g_c += dh * o;
        gur[i * k + 2] = dh * ct[i] * o * (T(1) - o);
      } else {
        g_c += dh;
      }
      gur[i * k] = g_c * upd * (T(1) - z * z);
      gur[i * k + 1] = -g_c * (z - cp) * m * f * (T(1) - f);
      gstate[i] = g_c * (T(1) - upd);
    }
  }
  for (int64_t i = 0; i < n; ++i) grad_c0[col0 + i] = gstate[i];
}

template <typename T, bool Gate, bool Zoneout>
void backwardKernel(const Geometry& g, const Inputs<T>& in, const T* grad_h,
                    const T* grad_last_c, const T* c, T* grad_u, T* grad_c0) {
  const ColumnBlocks cb = g.blocks();
  at::parallel_for(0, cb.runs(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run)
      backwardRun<T, Gate, Zoneout>(g, in, cb.at(run), grad_h, grad_last_c, c, grad_u,
                                    grad_c0);
  });
}

// Calls fn(gate_tag, zoneout_tag) with the run-time options as compile-time constants.
template <typename Fn>
void dispatchGateAndZoneout(bool gate, bool zoneout, Fn&& fn) {
  auto withZoneout = [&](auto gate_tag) {
    if (zoneout)
      fn(gate_tag, std::true_type{});
    else
      fn(gate_tag, std::false_type{});
  };
  if (gate)
    withZoneout(std::true_type{});
  else
    withZoneout(std::false_type{});
}

Geometry geometryOf(const Tensor& u, const QrnnPoolingOptions& opt) {
  return {u.size(0), u.size(1), opt.hidden_size, opt.numMatrices(), opt.output_gate};
}

template <typename T>
Inputs<T> inputsOf(const detail::QrnnPoolingTensors& in) {
  return {in.u.data_ptr<T>(), dataOrNull<T>(in.c0), dataOrNull<T>(in.zoneout),
          detail::padBytes(in.mask_pad)};
}

}  // namespace

QrnnPoolingForwardResult detail::qrnnPoolingCpuForward(const detail::QrnnPoolingTensors& in,
                                                       const QrnnPoolingOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyForwardResult<QrnnPoolingForwardResult>(u, g.d, g.d);
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "qrnn_pooling_forward", [&] {
    dispatchGateAndZoneout(g.gate, in.zoneout.defined(), [&](auto gate, auto zo) {
      forwardKernel<scalar_t, decltype(gate)::value, decltype(zo)::value>(
          g, inputsOf<scalar_t>(in), res.h.data_ptr<scalar_t>(),
          res.c.data_ptr<scalar_t>(), res.last_c.data_ptr<scalar_t>());
    });
  });
  return res;
}

QrnnPoolingBackwardResult detail::qrnnPoolingCpuBackward(const detail::BackwardTensors& grads,
                                                         const detail::QrnnPoolingTensors& in,
                                                         const QrnnPoolingOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyBackwardResult<QrnnPoolingBackwardResult>(u, g.d);
  res.grad_u.zero_();  // pad steps keep zeros
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "qrnn_pooling_backward", [&] {
    dispatchGateAndZoneout(g.gate, in.zoneout.defined(), [&](auto gate, auto zo) {
      backwardKernel<scalar_t, decltype(gate)::value, decltype(zo)::value>(
          g, inputsOf<scalar_t>(in), dataOrNull<scalar_t>(grads.grad_h),
          dataOrNull<scalar_t>(grads.grad_last_c), grads.c.data_ptr<scalar_t>(),
          res.grad_u.data_ptr<scalar_t>(), res.grad_c0.data_ptr<scalar_t>());
    });
  });
  return res;
}

}  // namespace recurlab::kernels
