#include "kernels/cpu/qrnn_pooling.h"


#include <torch/torch.h>

#include "kernels/cpu/column_blocks.h"
#include "kernels/cpu/vector_math.h"

#include <type_traits>

namespace recurlab::kernels {
namespace {

using detail::ColumnBlocks;
using detail::ColumnRun;
using detail::dataOrNull;
using detail::kBlock;
using torch::Tensor;

constexpr const char* kName = "QRNN pooling";

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
Inputs<T> inputsOf(const Tensor& u, const Tensor& c0, const Tensor& zoneout, const Tensor& pad) {
  return {u.data_ptr<T>(), dataOrNull<T>(c0), dataOrNull<T>(zoneout), dataOrNull<uint8_t>(pad)};
}

}  // namespace

void checkQrnnPoolingInputs(const Tensor& u, const Tensor& c0, const Tensor& zoneout,
                            const Tensor& mask_pad, const QrnnPoolingOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  const int64_t d = opt.hidden_size, k = opt.numMatrices();
  detail::checkTimeMajorU(kName, u, d * k,
                          opt.output_gate ? "3·d: [z, f, o] per unit for fo-pooling"
                                          : "2·d: [z, f] per unit for f-pooling");
  const int64_t L = u.size(0), B = u.size(1);
  if (c0.defined()) detail::checkLike(kName, u, c0, "c0", {B, d});
  if (zoneout.defined()) detail::checkLike(kName, u, zoneout, "zoneout mask", {L, B, d});
  detail::checkPadMask(kName, mask_pad, L, B);
}

QrnnPoolingForwardResult qrnnPoolingCpuForward(const Tensor& u_in, const Tensor& c0_in,
                                            const Tensor& zoneout_in, const Tensor& mask_pad,
                                            const QrnnPoolingOptions& opt) {
  checkQrnnPoolingInputs(u_in, c0_in, zoneout_in, mask_pad, opt);
  TORCH_CHECK(u_in.device().is_cpu(), kName, ": the CPU kernel got a tensor on ", u_in.device());
  const Tensor u = u_in.contiguous(), c0 = detail::contiguousOrUndefined(c0_in);
  const Tensor zoneout = detail::contiguousOrUndefined(zoneout_in);
  const Tensor pad = detail::padAsBytes(mask_pad);
  const Geometry g = geometryOf(u, opt);
  QrnnPoolingForwardResult res;
  res.h = torch::empty({g.L, g.B, g.d}, u.options());
  res.c = torch::empty({g.L, g.B, g.d}, u.options());
  res.last_c = torch::empty({g.B, g.d}, u.options());
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "qrnn_pooling_forward", [&] {
    dispatchGateAndZoneout(g.gate, zoneout.defined(), [&](auto gate, auto zo) {
      forwardKernel<scalar_t, decltype(gate)::value, decltype(zo)::value>(
          g, inputsOf<scalar_t>(u, c0, zoneout, pad), res.h.data_ptr<scalar_t>(),
          res.c.data_ptr<scalar_t>(), res.last_c.data_ptr<scalar_t>());
    });
  });
  return res;
}

QrnnPoolingBackwardResult qrnnPoolingCpuBackward(const Tensor& grad_h_in,
                                              const Tensor& grad_last_c_in, const Tensor& u_in,
                                              const Tensor& c0_in, const Tensor& c_in,
                                              const Tensor& zoneout_in, const Tensor& mask_pad,
                                              const QrnnPoolingOptions& opt) {
  checkQrnnPoolingInputs(u_in, c0_in, zoneout_in, mask_pad, opt);
  const Tensor u = u_in.contiguous(), c0 = detail::contiguousOrUndefined(c0_in);
  const Tensor zoneout = detail::contiguousOrUndefined(zoneout_in);
  const Tensor pad = detail::padAsBytes(mask_pad), c = c_in.contiguous();
  const Tensor grad_h = detail::contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = detail::contiguousOrUndefined(grad_last_c_in);
  const Geometry g = geometryOf(u, opt);
  detail::checkLike("QRNN pooling backward", u, c, "saved c", {g.L, g.B, g.d});
  QrnnPoolingBackwardResult res;
  res.grad_u = torch::zeros_like(u);  // pad steps keep zeros
  res.grad_c0 = torch::empty({g.B, g.d}, u.options());
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "qrnn_pooling_backward", [&] {
    dispatchGateAndZoneout(g.gate, zoneout.defined(), [&](auto gate, auto zo) {
      backwardKernel<scalar_t, decltype(gate)::value, decltype(zo)::value>(
          g, inputsOf<scalar_t>(u, c0, zoneout, pad), dataOrNull<scalar_t>(grad_h),
          dataOrNull<scalar_t>(grad_last_c), c.data_ptr<scalar_t>(),
          res.grad_u.data_ptr<scalar_t>(), res.grad_c0.data_ptr<scalar_t>());
    });
  });
  return res;
}

std::vector<Tensor> qrnnPoolingReference(const Tensor& u, const Tensor& c0,
                                         const Tensor& zoneout, const Tensor& mask_pad,
                                         const QrnnPoolingOptions& opt) {
  checkQrnnPoolingInputs(u, c0, zoneout, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size;
  const Tensor U = u.view({L, B, d, opt.numMatrices()});
  Tensor c = c0.defined() ? c0 : torch::zeros({B, d}, u.options());
  std::vector<Tensor> hs;
  for (int64_t t = 0; t < L; ++t) {
    const Tensor z = torch::tanh(U[t].select(2, 0));
    const Tensor f = torch::sigmoid(U[t].select(2, 1));
    Tensor upd = 1 - f;
    if (zoneout.defined()) upd = upd * zoneout[t];
    Tensor c_new = (1 - upd) * c + upd * z;
    Tensor h = opt.output_gate ? torch::sigmoid(U[t].select(2, 2)) * c_new : c_new;
    if (mask_pad.defined()) {
      const Tensor is_pad = mask_pad[t].to(torch::kBool).unsqueeze(1).expand({B, d});
      c_new = torch::where(is_pad, c, c_new);
      h = torch::where(is_pad, torch::zeros_like(h), h);
    }
    c = c_new;
    hs.push_back(h);
  }
  return {torch::stack(hs), c};
}

}  // namespace recurlab::kernels
