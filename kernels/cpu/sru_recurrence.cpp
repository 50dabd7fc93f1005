#include "kernels/sru_recurrence.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cpu/column_blocks.h"
#include "kernels/cpu/recycled_buffers.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/kernel_results.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;

// Work is split into tiles of one direction and a range of adjacent batch rows. A tile walks
// time once (backwards for the reverse direction) and, at each step, every batch row of its
// range and every unit of its direction: consecutive steps touch consecutive rows of the
// time-major tensors, a stream the hardware prefetcher follows. (One batch row at a time,
// each step jumped B·out·K values ahead and the backward waited on memory: 10x its in-cache
// time.) Within a row the inner loops run over blocks of up to kBlock adjacent units.
// Per column the arithmetic and its order are those of a walk over that column alone, so
// results do not depend on the tiling or the thread count.
constexpr int64_t kBlock = 64;

struct Geometry {
  int64_t L, B, out, d, k, dirs;
};

struct Tile {
  int64_t dir, b0, b1;
  bool flip() const { return dir == 1; }
};

// Calls fn(tile) for the tiles of the flat range [begin, end) of (direction, batch row) pairs,
// batch rows inner: one thread gets whole directions or a range of rows within one.
template <typename Fn>
void forEachTile(const Geometry& g, int64_t begin, int64_t end, Fn&& fn) {
  while (begin < end) {
    const int64_t dir = begin / g.B, b0 = begin % g.B;
    const int64_t b1 = std::min(g.B, b0 + (end - begin));
    fn(Tile{dir, b0, b1});
    begin += b1 - b0;
  }
}

template <typename T>
struct Pointers {
  const T* u;
  const T* x;
  const T* wc;
  const T* bias;
  const T* c0;
  const T* mask_c;
  const uint8_t* pad;
};

// The loops over adjacent units are branch-free (skip kind and mask are template parameters)
// and marked `omp simd`; RECURLAB_SIMD_CLONES (vector_math.h) adds AVX-512 / AVX2 clones.
// Splits one step's block of U (n units × K interleaved values) into one array per matrix.
// With K a compile-time constant this is a few permutes, where reading ur[i*K + q] inside the
// math loop gathered lane by lane.
template <typename T, int64_t K>
inline void deinterleave(const T* __restrict ur, int64_t n, T* __restrict a0, T* __restrict a1,
                         T* __restrict a2, T* __restrict a3) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    a0[i] = ur[i * K];
    a1[i] = ur[i * K + 1];
    a2[i] = ur[i * K + 2];
    if constexpr (K == 4) a3[i] = ur[i * K + 3];
  }
}

// The state of the tile's columns lives in last_c itself (initialised from c0): after the
// last step it is the result.
template <typename T, SruSkip Skip, bool Masked>
RECURLAB_SIMD_CLONES void forwardTile(const Geometry& g, const Pointers<T>& p, T alpha,
                                      const Tile tile, T* __restrict h, T* __restrict c,
                                      T* __restrict last_c) {
  constexpr int64_t K = Skip == SruSkip::LearnedProjection ? 4 : 3;
  const int64_t out = g.out, jd = tile.dir * g.d;
  for (int64_t b = tile.b0; b < tile.b1; ++b)
    for (int64_t j = 0; j < g.d; ++j)
      last_c[b * out + jd + j] = p.c0 ? p.c0[b * out + jd + j] : T(0);
  for (int64_t step = 0; step < g.L; ++step) {
    const int64_t t = tile.flip() ? g.L - 1 - step : step;
    for (int64_t b = tile.b0; b < tile.b1; ++b) {
      const bool is_pad = p.pad && p.pad[t * g.B + b];
      for (int64_t j0 = jd; j0 < jd + g.d; j0 += kBlock) {
        const int64_t n = std::min(kBlock, jd + g.d - j0);
        const int64_t col0 = b * out + j0;
        const int64_t row = t * g.B * out + col0;
        T* __restrict hr = h + row;
        T* __restrict cr = c + row;
        T* __restrict state = last_c + col0;
        if (is_pad) {
          for (int64_t i = 0; i < n; ++i) {
            cr[i] = state[i];
            hr[i] = T(0);
          }
          continue;
        }
        const T* __restrict vf = p.wc + j0;
        const T* __restrict vr = p.wc + out + j0;
        const T* __restrict bf = p.bias + j0;
        const T* __restrict br = p.bias + out + j0;
        const T* __restrict m = Masked ? p.mask_c + col0 : nullptr;
        const T* __restrict ur = p.u + row * K;
        const T* __restrict xr = Skip == SruSkip::ScaledInput ? p.x + row : nullptr;
        T a0[kBlock], a1[kBlock], a2[kBlock], a3[kBlock];
        deinterleave<T, K>(ur, n, a0, a1, a2, a3);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
          const T u0 = a0[i], u1 = a1[i], u2 = a2[i];
          const T cp = state[i];
          const T f = vsigmoid(u1 + vf[i] * cp + bf[i]);
          const T rg = vsigmoid(u2 + vr[i] * cp + br[i]);
          const T cn = (cp - u0) * f + u0;
          T xs = T(0);
          if constexpr (Skip == SruSkip::ScaledInput) xs = alpha * xr[i];
          if constexpr (Skip == SruSkip::LearnedProjection) xs = a3[i];
          T mr = rg;
          if constexpr (Masked) mr = rg * m[i];
          hr[i] = (cn - xs) * mr + xs;
          cr[i] = cn;
          state[i] = cn;
        }
      }
    }
  }
}

template <typename T, SruSkip Skip, bool Masked>
void forwardKernel(const Geometry& g, const Pointers<T>& p, T alpha, T* h, T* c, T* last_c) {
  at::parallel_for(0, g.dirs * g.B, 1, [&](int64_t begin, int64_t end) {
    forEachTile(g, begin, end, [&](const Tile& tile) {
      forwardTile<T, Skip, Masked>(g, p, alpha, tile, h, c, last_c);
    });
  });
}

// Per-column parameter gradients are accumulated over time in double (a float sum over L steps
// loses about eps·sqrt(L) to eps·L of its size, see tests/kernels/cpu/float_backward_test.cpp;
// the reference kernel sums in float) straight into col_grad (4, B, out), then summed over the
// batch in double in a fixed order: no atomics, the same result for any thread count. The
// gradient of the state lives in grad_c0 (initialised from grad_last_c). Pad steps write zero
// gradients for u and x here, so the outputs need no separate zero fill.
template <typename T, SruSkip Skip, bool Masked>
RECURLAB_SIMD_CLONES void backwardTile(const Geometry& g, const Pointers<T>& p, T alpha,
                                       const Tile tile, const T* __restrict grad_h,
                                       const T* __restrict grad_last_c, const T* __restrict c,
                                       T* __restrict grad_u, T* __restrict grad_x,
                                       T* __restrict grad_c0, double* __restrict col_grad) {
  constexpr int64_t K = Skip == SruSkip::LearnedProjection ? 4 : 3;
  const int64_t out = g.out, cols = g.B * out, jd = tile.dir * g.d;
  for (int64_t b = tile.b0; b < tile.b1; ++b)
    for (int64_t j = 0; j < g.d; ++j) {
      const int64_t col = b * out + jd + j;
      grad_c0[col] = grad_last_c ? grad_last_c[col] : T(0);
      for (int64_t q = 0; q < 4; ++q) col_grad[q * cols + col] = 0.0;
    }
  T zeros[kBlock];
  for (int64_t i = 0; i < kBlock; ++i) zeros[i] = T(0);
  for (int64_t step = g.L - 1; step >= 0; --step) {
    const int64_t t = tile.flip() ? g.L - 1 - step : step;
    for (int64_t b = tile.b0; b < tile.b1; ++b) {
      const bool is_pad = p.pad && p.pad[t * g.B + b];
      for (int64_t j0 = jd; j0 < jd + g.d; j0 += kBlock) {
        const int64_t n = std::min(kBlock, jd + g.d - j0);
        const int64_t col0 = b * out + j0;
        const int64_t row = t * g.B * out + col0;
        if (is_pad) {  // gradient of c passes unchanged
          std::fill(grad_u + row * K, grad_u + (row + n) * K, T(0));
          if (Skip == SruSkip::ScaledInput) std::fill(grad_x + row, grad_x + row + n, T(0));
          continue;
        }
        T* __restrict gstate = grad_c0 + col0;
        double* __restrict acc_vf = col_grad + 0 * cols + col0;
        double* __restrict acc_vr = col_grad + 1 * cols + col0;
        double* __restrict acc_bf = col_grad + 2 * cols + col0;
        double* __restrict acc_br = col_grad + 3 * cols + col0;
        const T* __restrict vf = p.wc + j0;
        const T* __restrict vr = p.wc + out + j0;
        const T* __restrict bf = p.bias + j0;
        const T* __restrict br = p.bias + out + j0;
        const T* __restrict m = Masked ? p.mask_c + col0 : nullptr;
        const T* __restrict cprev = p.c0 ? p.c0 + col0 : zeros;
        if (step > 0) cprev = c + (tile.flip() ? t + 1 : t - 1) * g.B * out + col0;
        const T* __restrict ur = p.u + row * K;
        const T* __restrict ct = c + row;
        const T* __restrict dhr = grad_h ? grad_h + row : zeros;
        const T* __restrict xr = Skip == SruSkip::ScaledInput ? p.x + row : nullptr;
        T* __restrict gur = grad_u + row * K;
        T* __restrict gxr = Skip == SruSkip::ScaledInput ? grad_x + row : nullptr;
        // U is deinterleaved and dU interleaved in separate loops (see forwardTile).
        T a0[kBlock], a1[kBlock], a2[kBlock], a3[kBlock];
        T g0[kBlock], g1[kBlock], g2[kBlock], g3[kBlock];
        deinterleave<T, K>(ur, n, a0, a1, a2, a3);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
          const T u0 = a0[i], u1 = a1[i], u2 = a2[i];
          const T cp = cprev[i];
          const T f = vsigmoid(u1 + vf[i] * cp + bf[i]);
          const T rg = vsigmoid(u2 + vr[i] * cp + br[i]);
          T xs = T(0);
          if constexpr (Skip == SruSkip::ScaledInput) xs = alpha * xr[i];
          if constexpr (Skip == SruSkip::LearnedProjection) xs = a3[i];
          T mi = T(1);
          if constexpr (Masked) mi = m[i];
          const T dh = dhr[i];
          const T g_r = dh * (ct[i] - xs) * mi * rg * (T(1) - rg);  // d/d(pre-activation of r)
          const T g_c = dh * mi * rg + gstate[i];
          const T g_f = g_c * (cp - u0) * f * (T(1) - f);  // d/d(pre-activation of f)
          g0[i] = g_c * (T(1) - f);
          g1[i] = g_f;
          g2[i] = g_r;
          const T g_skip = dh * (T(1) - mi * rg);
          if constexpr (Skip == SruSkip::LearnedProjection) g3[i] = g_skip;
          if constexpr (Skip == SruSkip::ScaledInput) gxr[i] = g_skip * alpha;
          gstate[i] = g_c * f + g_f * vf[i] + g_r * vr[i];
          acc_vf[i] += static_cast<double>(g_f * cp);
          acc_vr[i] += static_cast<double>(g_r * cp);
          acc_bf[i] += static_cast<double>(g_f);
          acc_br[i] += static_cast<double>(g_r);
        }
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
          gur[i * K] = g0[i];
          gur[i * K + 1] = g1[i];
          gur[i * K + 2] = g2[i];
          if constexpr (K == 4) gur[i * K + 3] = g3[i];
        }
      }
    }
  }
}

template <typename T, SruSkip Skip, bool Masked>
void backwardKernel(const Geometry& g, const Pointers<T>& p, T alpha, const T* grad_h,
                    const T* grad_last_c, const T* c, T* grad_u, T* grad_x, T* grad_c0,
                    double* col_grad) {
  at::parallel_for(0, g.dirs * g.B, 1, [&](int64_t begin, int64_t end) {
    forEachTile(g, begin, end, [&](const Tile& tile) {
      backwardTile<T, Skip, Masked>(g, p, alpha, tile, grad_h, grad_last_c, c, grad_u, grad_x,
                                    grad_c0, col_grad);
    });
  });
}

// Calls fn(skip_tag, masked_tag) with the run-time options as compile-time constants.
template <typename Fn>
void dispatchSkipAndMask(SruSkip skip, bool masked, Fn&& fn) {
  auto withMask = [&](auto skip_tag) {
    if (masked)
      fn(skip_tag, std::true_type{});
    else
      fn(skip_tag, std::false_type{});
  };
  switch (skip) {
    case SruSkip::None: withMask(std::integral_constant<SruSkip, SruSkip::None>{}); break;
    case SruSkip::ScaledInput:
      withMask(std::integral_constant<SruSkip, SruSkip::ScaledInput>{});
      break;
    case SruSkip::LearnedProjection:
      withMask(std::integral_constant<SruSkip, SruSkip::LearnedProjection>{});
      break;
  }
}

template <typename T>
Pointers<T> pointersOf(const detail::SruTensors& in) {
  auto dataOrNull = [](const Tensor& t) { return t.defined() ? t.data_ptr<T>() : nullptr; };
  return {in.u.data_ptr<T>(),        dataOrNull(in.x),  in.weight_c.data_ptr<T>(),
          in.bias.data_ptr<T>(),     dataOrNull(in.c0), dataOrNull(in.mask_c),
          detail::padBytes(in.mask_pad)};
}

Geometry geometryOf(const Tensor& u, const SruRecurrenceOptions& opt) {
  return {u.size(0), u.size(1), opt.outputSize(), opt.hidden_size, opt.numMatrices(),
          opt.directions()};
}


}  // namespace

SruForwardResult detail::sruRecurrenceCpuForward(const detail::SruTensors& in,
                                                 const SruRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  auto res = detail::emptyForwardResult<SruForwardResult>(u, g.out, g.out, detail::recycledEmpty);
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_forward", [&] {
    const auto ptrs = pointersOf<scalar_t>(in);
    dispatchSkipAndMask(opt.skip, in.mask_c.defined(), [&](auto s, auto m) {
      forwardKernel<scalar_t, decltype(s)::value, decltype(m)::value>(g, ptrs, static_cast<scalar_t>(opt.alpha),
                                    res.h.data_ptr<scalar_t>(), res.c.data_ptr<scalar_t>(),
                                    res.last_c.data_ptr<scalar_t>());
    });
  });
  return res;
}

SruBackwardResult detail::sruRecurrenceCpuBackward(const detail::BackwardTensors& grads,
                                                   const detail::SruTensors& in,
                                                   const SruRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const Geometry g = geometryOf(u, opt);
  // Every element of the outputs is written (pad steps with zeros): no zero fill.
  auto res = detail::emptyBackwardResult<SruBackwardResult>(u, g.out, detail::recycledEmpty);
  res.grad_x = opt.skip == SruSkip::ScaledInput ? detail::recycledEmpty(in.x.sizes(), u.options())
                                                : Tensor();
  Tensor col_grad = detail::recycledEmpty({4, g.B, g.out}, u.options().dtype(torch::kDouble));
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_backward", [&] {
    const auto ptrs = pointersOf<scalar_t>(in);
    dispatchSkipAndMask(opt.skip, in.mask_c.defined(), [&](auto s, auto m) {
      backwardKernel<scalar_t, decltype(s)::value, decltype(m)::value>(
          g, ptrs, static_cast<scalar_t>(opt.alpha),
          grads.grad_h.defined() ? grads.grad_h.data_ptr<scalar_t>() : nullptr,
          grads.grad_last_c.defined() ? grads.grad_last_c.data_ptr<scalar_t>() : nullptr,
          grads.c.data_ptr<scalar_t>(), res.grad_u.data_ptr<scalar_t>(),
          res.grad_x.defined() ? res.grad_x.data_ptr<scalar_t>() : nullptr,
          res.grad_c0.data_ptr<scalar_t>(), col_grad.data_ptr<double>());
    });
  });
  // Rows d v_f, d v_r, d b_f, d b_r; weight_c and bias are [f | r].
  Tensor param = detail::sumOverBatch(col_grad);
  param = param.to(u.scalar_type());
  res.grad_weight_c = torch::cat({param[0], param[1]});
  res.grad_bias = torch::cat({param[2], param[3]});
  return res;
}

}  // namespace recurlab::kernels
