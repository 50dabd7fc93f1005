#include "kernels/cpu/sru_recurrence.h"

#include <torch/torch.h>

#ifdef RECURLAB_WITH_CUDA
#include "kernels/cuda/sru_recurrence.h"
#endif

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace recurlab::kernels {
namespace {

using torch::Tensor;

// Columns of one (batch, direction) pair are processed in blocks: the inner loop runs over
// adjacent units (contiguous memory), the outer loop over time.
constexpr int64_t kBlock = 64;

std::string shapeOf(const Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

template <typename T>
inline T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

struct Geometry {
  int64_t L, B, out, d, k, dirs;
  int64_t blocksPerDir() const { return (d + kBlock - 1) / kBlock; }
  int64_t runs() const { return B * dirs * blocksPerDir(); }
};

struct Run {
  int64_t b, j0, n;
  bool flip;
};

inline Run runAt(const Geometry& g, int64_t run) {
  const int64_t per = g.dirs * g.blocksPerDir();
  const int64_t b = run / per;
  const int64_t rem = run % per;
  const int64_t dir = rem / g.blocksPerDir();
  const int64_t j0 = dir * g.d + (rem % g.blocksPerDir()) * kBlock;
  return {b, j0, std::min(kBlock, (dir + 1) * g.d - j0), dir == 1};
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

template <typename T>
void forwardKernel(const Geometry& g, const Pointers<T>& p, SruSkip skip, T alpha, T* h, T* c,
                   T* last_c) {
  const int64_t out = g.out, k = g.k;
  at::parallel_for(0, g.runs(), 1, [&](int64_t begin, int64_t end) {
    T state[kBlock];
    for (int64_t run = begin; run < end; ++run) {
      const Run r = runAt(g, run);
      const int64_t col0 = r.b * out + r.j0;
      for (int64_t i = 0; i < r.n; ++i) state[i] = p.c0 ? p.c0[col0 + i] : T(0);
      const T* vf = p.wc + r.j0;
      const T* vr = p.wc + out + r.j0;
      const T* bf = p.bias + r.j0;
      const T* br = p.bias + out + r.j0;
      const T* m = p.mask_c ? p.mask_c + col0 : nullptr;
      for (int64_t step = 0; step < g.L; ++step) {
        const int64_t t = r.flip ? g.L - 1 - step : step;
        const int64_t row = (t * g.B + r.b) * out + r.j0;
        if (p.pad && p.pad[t * g.B + r.b]) {
          for (int64_t i = 0; i < r.n; ++i) {
            c[row + i] = state[i];
            h[row + i] = T(0);
          }
          continue;
        }
        const T* ur = p.u + row * k;
        for (int64_t i = 0; i < r.n; ++i) {
          const T* ui = ur + i * k;
          const T cp = state[i];
          const T f = sigmoid(ui[1] + vf[i] * cp + bf[i]);
          const T rg = sigmoid(ui[2] + vr[i] * cp + br[i]);
          const T cn = (cp - ui[0]) * f + ui[0];
          const T xs = skip == SruSkip::ScaledInput        ? alpha * p.x[row + i]
                       : skip == SruSkip::LearnedProjection ? ui[3]
                                                            : T(0);
          const T mi = m ? m[i] : T(1);
          h[row + i] = (cn - xs) * mi * rg + xs;
          c[row + i] = cn;
          state[i] = cn;
        }
      }
      for (int64_t i = 0; i < r.n; ++i) last_c[col0 + i] = state[i];
    }
  });
}

// Per-column parameter gradients go to col_grad (4, B, out) in double, then are summed over
// the batch in a fixed order: no atomics, the same result for any thread count.
template <typename T>
void backwardKernel(const Geometry& g, const Pointers<T>& p, SruSkip skip, T alpha,
                    const T* grad_h, const T* grad_last_c, const T* c, T* grad_u, T* grad_x,
                    T* grad_c0, double* col_grad) {
  const int64_t out = g.out, k = g.k, cols = g.B * out;
  at::parallel_for(0, g.runs(), 1, [&](int64_t begin, int64_t end) {
    T gstate[kBlock];
    double acc[4][kBlock];
    for (int64_t run = begin; run < end; ++run) {
      const Run r = runAt(g, run);
      const int64_t col0 = r.b * out + r.j0;
      for (int64_t i = 0; i < r.n; ++i) {
        gstate[i] = grad_last_c ? grad_last_c[col0 + i] : T(0);
        acc[0][i] = acc[1][i] = acc[2][i] = acc[3][i] = 0.0;
      }
      const T* vf = p.wc + r.j0;
      const T* vr = p.wc + out + r.j0;
      const T* bf = p.bias + r.j0;
      const T* br = p.bias + out + r.j0;
      const T* m = p.mask_c ? p.mask_c + col0 : nullptr;
      for (int64_t step = g.L - 1; step >= 0; --step) {
        const int64_t t = r.flip ? g.L - 1 - step : step;
        if (p.pad && p.pad[t * g.B + r.b]) continue;  // gradient of c passes unchanged
        const int64_t row = (t * g.B + r.b) * out + r.j0;
        const T* cprev = nullptr;  // nullptr: the first step, which reads c0
        if (step > 0) {
          const int64_t tp = r.flip ? t + 1 : t - 1;
          cprev = c + (tp * g.B + r.b) * out + r.j0;
        }
        const T* ur = p.u + row * k;
        T* gur = grad_u + row * k;
        for (int64_t i = 0; i < r.n; ++i) {
          const T* ui = ur + i * k;
          const T cp = cprev ? cprev[i] : (p.c0 ? p.c0[col0 + i] : T(0));
          const T f = sigmoid(ui[1] + vf[i] * cp + bf[i]);
          const T rg = sigmoid(ui[2] + vr[i] * cp + br[i]);
          const T ct = c[row + i];
          const T xs = skip == SruSkip::ScaledInput        ? alpha * p.x[row + i]
                       : skip == SruSkip::LearnedProjection ? ui[3]
                                                            : T(0);
          const T mi = m ? m[i] : T(1);
          const T dh = grad_h ? grad_h[row + i] : T(0);
          const T g_r = dh * (ct - xs) * mi * rg * (T(1) - rg);  // d/d(pre-activation of r)
          const T g_c = dh * mi * rg + gstate[i];
          const T g_f = g_c * (cp - ui[0]) * f * (T(1) - f);  // d/d(pre-activation of f)
          T* gui = gur + i * k;
          gui[0] = g_c * (T(1) - f);
          gui[1] = g_f;
          gui[2] = g_r;
          const T g_skip = dh * (T(1) - mi * rg);
          if (skip == SruSkip::LearnedProjection) gui[3] = g_skip;
          if (skip == SruSkip::ScaledInput) grad_x[row + i] = g_skip * alpha;
          gstate[i] = g_c * f + g_f * vf[i] + g_r * vr[i];
          acc[0][i] += static_cast<double>(g_f) * cp;
          acc[1][i] += static_cast<double>(g_r) * cp;
          acc[2][i] += g_f;
          acc[3][i] += g_r;
        }
      }
      for (int64_t i = 0; i < r.n; ++i) {
        grad_c0[col0 + i] = gstate[i];
        for (int q = 0; q < 4; ++q) col_grad[q * cols + col0 + i] = acc[q][i];
      }
    }
  });
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

Tensor padAsBytes(const Tensor& mask_pad) {
  return mask_pad.defined() ? mask_pad.to(torch::kUInt8).contiguous() : mask_pad;
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

SruForwardResult sruRecurrenceForward(const Tensor& u_in, const Tensor& x_in,
                                      const Tensor& wc_in, const Tensor& bias_in,
                                      const Tensor& c0_in, const Tensor& mask_c_in,
                                      const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  TORCH_CHECK(u_in.device().is_cpu(), "SRU recurrence: the CPU kernel got a tensor on ",
              u_in.device());
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = contiguousOrUndefined(c0_in), mask_c = contiguousOrUndefined(mask_c_in);
  const Tensor pad = padAsBytes(mask_pad);
  const Geometry g = geometryOf(u, opt);
  SruForwardResult res;
  res.h = torch::empty({g.L, g.B, g.out}, u.options());
  res.c = torch::empty({g.L, g.B, g.out}, u.options());
  res.last_c = torch::empty({g.B, g.out}, u.options());
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_forward", [&] {
    forwardKernel<scalar_t>(g, pointersOf<scalar_t>(u, x, wc, bias, c0, mask_c, pad), opt.skip,
                            static_cast<scalar_t>(opt.alpha), res.h.data_ptr<scalar_t>(),
                            res.c.data_ptr<scalar_t>(), res.last_c.data_ptr<scalar_t>());
  });
  return res;
}

SruBackwardResult sruRecurrenceBackward(const Tensor& grad_h_in, const Tensor& grad_last_c_in,
                                        const Tensor& u_in, const Tensor& x_in,
                                        const Tensor& wc_in, const Tensor& bias_in,
                                        const Tensor& c0_in, const Tensor& c_in,
                                        const Tensor& mask_c_in, const Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = contiguousOrUndefined(c0_in), mask_c = contiguousOrUndefined(mask_c_in);
  const Tensor c = c_in.contiguous(), pad = padAsBytes(mask_pad);
  const Tensor grad_h = contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = contiguousOrUndefined(grad_last_c_in);
  const Geometry g = geometryOf(u, opt);
  TORCH_CHECK(c.sizes() == c10::IntArrayRef({g.L, g.B, g.out}),
              "SRU recurrence backward: saved c has shape ", shapeOf(c));
  SruBackwardResult res;
  res.grad_u = torch::zeros_like(u);  // pad steps keep zeros
  res.grad_x = opt.skip == SruSkip::ScaledInput ? torch::zeros_like(x) : Tensor();
  res.grad_c0 = torch::empty({g.B, g.out}, u.options());
  Tensor col_grad = torch::empty({4, g.B, g.out}, u.options().dtype(torch::kDouble));
  AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "sru_recurrence_backward", [&] {
    backwardKernel<scalar_t>(
        g, pointersOf<scalar_t>(u, x, wc, bias, c0, mask_c, pad), opt.skip,
        static_cast<scalar_t>(opt.alpha),
        grad_h.defined() ? grad_h.data_ptr<scalar_t>() : nullptr,
        grad_last_c.defined() ? grad_last_c.data_ptr<scalar_t>() : nullptr,
        c.data_ptr<scalar_t>(), res.grad_u.data_ptr<scalar_t>(),
        res.grad_x.defined() ? res.grad_x.data_ptr<scalar_t>() : nullptr,
        res.grad_c0.data_ptr<scalar_t>(), col_grad.data_ptr<double>());
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

namespace {

class SruRecurrenceFunction : public torch::autograd::Function<SruRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor x, Tensor weight_c, Tensor bias,
                                                Tensor c0, Tensor mask_c, Tensor mask_pad,
                                                int64_t hidden_size, bool bidirectional,
                                                int64_t skip, double alpha) {
    SruRecurrenceOptions opt{hidden_size, bidirectional, static_cast<SruSkip>(skip), alpha};
    SruForwardResult res = sruRecurrenceForward(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
    ctx->save_for_backward({u, x, weight_c, bias, c0, res.c, mask_c, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["bidirectional"] = bidirectional;
    ctx->saved_data["skip"] = skip;
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["c0_defined"] = c0.defined();
    return {res.h, res.last_c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    SruRecurrenceOptions opt{ctx->saved_data["hidden_size"].toInt(),
                             ctx->saved_data["bidirectional"].toBool(),
                             static_cast<SruSkip>(ctx->saved_data["skip"].toInt()),
                             ctx->saved_data["alpha"].toDouble()};
    SruBackwardResult g = sruRecurrenceBackward(grads[0], grads[1], saved[0], saved[1], saved[2],
                                                saved[3], saved[4], saved[5], saved[6],
                                                saved[7], opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u,   g.grad_x,   g.grad_weight_c, g.grad_bias,
            c0_defined ? g.grad_c0 : Tensor(),
            Tensor(),   Tensor(),   Tensor(),        Tensor(),
            Tensor(),   Tensor()};
  }
};

}  // namespace

std::vector<Tensor> sruRecurrence(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                  const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                                  const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
#ifdef RECURLAB_WITH_CUDA
  if (u.defined() && u.is_cuda())
    return sruRecurrenceCuda(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
#else
  TORCH_CHECK(!(u.defined() && u.is_cuda()), "SRU recurrence: U is on ", u.device(),
              " but recurlab was built without its CUDA kernels (configure against a "
              "CUDA-enabled LibTorch, e.g. scripts/gpu-check.sh)");
#endif
  checkSruRecurrenceInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  const Tensor skip_x = opt.skip == SruSkip::ScaledInput ? x : Tensor();
  return SruRecurrenceFunction::apply(u, skip_x, weight_c, bias, c0, mask_c, mask_pad,
                                      opt.hidden_size, opt.bidirectional,
                                      static_cast<int64_t>(opt.skip), opt.alpha);
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
