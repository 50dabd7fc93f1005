#include "kernels/cpu/sru_recurrence.h"

#include "kernels/cpu/column_blocks.h"
#include "kernels/cpu/recycled_buffers.h"
#include "kernels/cpu/vector_math.h"

#include <torch/torch.h>


#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

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

std::string shapeOf(const Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

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

Tensor contiguousOrUndefined(const Tensor& t) { return t.defined() ? t.contiguous() : t; }

template <typename T>
Pointers<T> pointersOf(const Tensor& u, const Tensor& x, const Tensor& wc, const Tensor& bias,
                       const Tensor& c0, const Tensor& mask_c, const Tensor& pad) {
  return {u.data_ptr<T>(),
          x.defined() ? x.data_ptr<T>() : nullptr,
          wc.data_ptr<T>(),
          bias.data_ptr<T>(),
          c0.defined() ? c0.data_ptr<T>() : nullptr,
          mask_c.defined() ? mask_c.data_ptr<T>() : nullptr,
          pad.defined() ? pad.data_ptr<uint8_t>() : nullptr};
}

Geometry geometryOf(const Tensor& u, const SruRecurrenceOptions& opt) {
  return {u.size(0), u.size(1), opt.outputSize(), opt.hidden_size, opt.numMatrices(),
          opt.directions()};
}


}  // namespace

void checkSruRecurrenceInputs(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                              const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                              const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, "SRU recurrence: hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(u.defined(), "SRU recurrence: U is undefined");
  TORCH_CHECK(u.dim() == 3, "SRU recurrence: U must be (length, batch, columns), got shape ",
              shapeOf(u));
  const bool half_on_cuda = u.is_cuda() && (u.scalar_type() == torch::kHalf ||
                                             u.scalar_type() == torch::kBFloat16);
  TORCH_CHECK(u.scalar_type() == torch::kFloat || u.scalar_type() == torch::kDouble ||
                  half_on_cuda,
              "SRU recurrence: U must be float32 or float64 (float16 and bfloat16 on CUDA "
              "only), got ", u.scalar_type(), " on ", u.device());
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, dirs = opt.directions();
  const int64_t out = opt.outputSize(), k = opt.numMatrices();
  if (u.size(2) != out * k) {
    std::ostringstream msg;
    msg << "SRU recurrence: U has " << u.size(2) << " columns, expected " << k << "·d·dirs = "
        << out * k << " for a layer with "
        << (opt.skip == SruSkip::LearnedProjection ? "a learned skip"
                                                    : (opt.skip == SruSkip::ScaledInput
                                                           ? "a scaled-input skip"
                                                           : "no skip"))
        << " (d = " << d << ", " << dirs << " direction" << (dirs > 1 ? "s" : "") << ")";
    if (u.size(2) % out == 0 && u.size(2) / out != k)
      msg << "; it holds " << u.size(2) / out << " matrices per unit";
    TORCH_CHECK(false, msg.str());
  }
  auto sameType = [&](const Tensor& t, const char* name) {
    TORCH_CHECK(t.scalar_type() == u.scalar_type(), "SRU recurrence: ", name, " has dtype ",
                t.scalar_type(), " but U has ", u.scalar_type());
    TORCH_CHECK(t.device() == u.device(), "SRU recurrence: ", name, " is on ", t.device(),
                " but U is on ", u.device());
  };
  auto expectShape = [&](const Tensor& t, const char* name, std::vector<int64_t> want) {
    TORCH_CHECK(t.sizes() == c10::IntArrayRef(want), "SRU recurrence: ", name, " has shape ",
                shapeOf(t), ", expected ", c10::IntArrayRef(want));
  };
  if (opt.skip == SruSkip::ScaledInput) {
    TORCH_CHECK(x.defined(),
                "SRU recurrence: the scaled-input skip needs x (length, batch, out), got none");
    sameType(x, "x");
    expectShape(x, "x (the skip input; its size must equal dirs·d)", {L, B, out});
  }
  TORCH_CHECK(weight_c.defined() && bias.defined(),
              "SRU recurrence: weight_c and bias are required");
  sameType(weight_c, "weight_c");
  sameType(bias, "bias");
  expectShape(weight_c, "weight_c", {2 * out});
  expectShape(bias, "bias", {2 * out});
  if (c0.defined()) {
    sameType(c0, "c0");
    expectShape(c0, "c0", {B, out});
  }
  if (mask_c.defined()) {
    sameType(mask_c, "mask_c (dropout mask)");
    expectShape(mask_c, "mask_c (dropout mask)", {B, out});
  }
  if (mask_pad.defined()) {
    TORCH_CHECK(mask_pad.scalar_type() == torch::kBool || mask_pad.scalar_type() == torch::kUInt8,
                "SRU recurrence: mask_pad must be bool or uint8 (nonzero = pad), got ",
                mask_pad.scalar_type());
    expectShape(mask_pad, "mask_pad (nonzero = pad)", {L, B});
  }
}

SruForwardResult sruRecurrenceCpuForward(const Tensor& u_in, const Tensor& x_in,
                                      const Tensor& wc_in, const Tensor& bias_in,
                                      const Tensor& c0_in, const Tensor& mask_c_in,
                                      const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  TORCH_CHECK(u_in.device().is_cpu(), "SRU recurrence: the CPU kernel got a tensor on ",
              u_in.device());
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = contiguousOrUndefined(c0_in), mask_c = contiguousOrUndefined(mask_c_in);
  const Tensor pad = detail::padAsBytes(mask_pad);
  const Geometry g = geometryOf(u, opt);
  SruForwardResult res;
  res.h = detail::recycledEmpty({g.L, g.B, g.out}, u.options());
  res.c = detail::recycledEmpty({g.L, g.B, g.out}, u.options());
  res.last_c = torch::empty({g.B, g.out}, u.options());
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_forward", [&] {
    const auto ptrs = pointersOf<scalar_t>(u, x, wc, bias, c0, mask_c, pad);
    dispatchSkipAndMask(opt.skip, mask_c.defined(), [&](auto s, auto m) {
      forwardKernel<scalar_t, decltype(s)::value, decltype(m)::value>(g, ptrs, static_cast<scalar_t>(opt.alpha),
                                    res.h.data_ptr<scalar_t>(), res.c.data_ptr<scalar_t>(),
                                    res.last_c.data_ptr<scalar_t>());
    });
  });
  return res;
}

SruBackwardResult sruRecurrenceCpuBackward(const Tensor& grad_h_in, const Tensor& grad_last_c_in,
                                        const Tensor& u_in, const Tensor& x_in,
                                        const Tensor& wc_in, const Tensor& bias_in,
                                        const Tensor& c0_in, const Tensor& c_in,
                                        const Tensor& mask_c_in, const Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = contiguousOrUndefined(c0_in), mask_c = contiguousOrUndefined(mask_c_in);
  const Tensor c = c_in.contiguous(), pad = detail::padAsBytes(mask_pad);
  const Tensor grad_h = contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = contiguousOrUndefined(grad_last_c_in);
  const Geometry g = geometryOf(u, opt);
  TORCH_CHECK(c.sizes() == c10::IntArrayRef({g.L, g.B, g.out}),
              "SRU recurrence backward: saved c has shape ", shapeOf(c));
  SruBackwardResult res;
  // Every element of the outputs is written (pad steps with zeros): no zero fill.
  res.grad_u = detail::recycledEmpty(u.sizes(), u.options());
  res.grad_x =
      opt.skip == SruSkip::ScaledInput ? detail::recycledEmpty(x.sizes(), x.options()) : Tensor();
  res.grad_c0 = torch::empty({g.B, g.out}, u.options());
  Tensor col_grad = detail::recycledEmpty({4, g.B, g.out}, u.options().dtype(torch::kDouble));
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_backward", [&] {
    const auto ptrs = pointersOf<scalar_t>(u, x, wc, bias, c0, mask_c, pad);
    dispatchSkipAndMask(opt.skip, mask_c.defined(), [&](auto s, auto m) {
      backwardKernel<scalar_t, decltype(s)::value, decltype(m)::value>(
          g, ptrs, static_cast<scalar_t>(opt.alpha),
          grad_h.defined() ? grad_h.data_ptr<scalar_t>() : nullptr,
          grad_last_c.defined() ? grad_last_c.data_ptr<scalar_t>() : nullptr,
          c.data_ptr<scalar_t>(), res.grad_u.data_ptr<scalar_t>(),
          res.grad_x.defined() ? res.grad_x.data_ptr<scalar_t>() : nullptr,
          res.grad_c0.data_ptr<scalar_t>(), col_grad.data_ptr<double>());
    });
  });
  // Sum over the batch, one unit at a time, always in batch order.
  Tensor param = torch::empty({4, g.out}, col_grad.options());
  const double* cg = col_grad.data_ptr<double>();
  double* pg = param.data_ptr<double>();
  const int64_t out = g.out, B = g.B;
  at::parallel_for(0, 4 * out, 256, [&](int64_t begin, int64_t end) {
    for (int64_t qj = begin; qj < end; ++qj) {
      const int64_t q = qj / out, j = qj % out;
      double s = 0.0;
      for (int64_t b = 0; b < B; ++b) s += cg[(q * B + b) * out + j];
      pg[qj] = s;
    }
  });
  param = param.to(u.scalar_type());
  res.grad_weight_c = torch::cat({param[0], param[1]});
  res.grad_bias = torch::cat({param[2], param[3]});
  return res;
}

std::vector<Tensor> sruRecurrenceReference(const Tensor& u, const Tensor& x,
                                           const Tensor& weight_c, const Tensor& bias,
                                           const Tensor& c0, const Tensor& mask_c,
                                           const Tensor& mask_pad,
                                           const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, out = opt.outputSize();
  const int64_t k = opt.numMatrices();
  const Tensor U = u.view({L, B, out, k});
  const Tensor vf = weight_c.slice(0, 0, out), vr = weight_c.slice(0, out, 2 * out);
  const Tensor bf = bias.slice(0, 0, out), br = bias.slice(0, out, 2 * out);
  const Tensor init = c0.defined() ? c0 : torch::zeros({B, out}, u.options());
  const Tensor m = mask_c.defined() ? mask_c : torch::ones({B, out}, u.options());
  std::vector<Tensor> h_dirs, last_dirs;
  for (int64_t dir = 0; dir < opt.directions(); ++dir) {
    const int64_t lo = dir * d, hi = lo + d;
    Tensor c = init.slice(1, lo, hi);
    std::vector<Tensor> hs(L);
    for (int64_t step = 0; step < L; ++step) {
      const int64_t t = dir == 1 ? L - 1 - step : step;
      const Tensor ut = U[t].slice(1, lo, hi);
      const Tensor f = torch::sigmoid(ut.select(2, 1) + vf.slice(0, lo, hi) * c +
                                      bf.slice(0, lo, hi));
      const Tensor r = torch::sigmoid(ut.select(2, 2) + vr.slice(0, lo, hi) * c +
                                      br.slice(0, lo, hi));
      Tensor c_new = f * c + (1 - f) * ut.select(2, 0);
      Tensor skip_term;
      if (opt.skip == SruSkip::ScaledInput) skip_term = opt.alpha * x[t].slice(1, lo, hi);
      if (opt.skip == SruSkip::LearnedProjection) skip_term = ut.select(2, 3);
      const Tensor md = m.slice(1, lo, hi);
      Tensor h = r * md * c_new;
      if (skip_term.defined()) h = h + (1 - r * md) * skip_term;
      if (mask_pad.defined()) {
        const Tensor is_pad = mask_pad[t].to(torch::kBool).unsqueeze(1).expand({B, d});
        c_new = torch::where(is_pad, c, c_new);
        h = torch::where(is_pad, torch::zeros_like(h), h);
      }
      c = c_new;
      hs[t] = h;
    }
    h_dirs.push_back(torch::stack(hs));
    last_dirs.push_back(c);
  }
  return {torch::cat(h_dirs, 2), torch::cat(last_dirs, 1)};
}

}  // namespace recurlab::kernels
