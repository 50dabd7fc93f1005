// The naive references of the fused recurrences (kernels/*.h): loops over time with plain
// tensor ops, differentiated by autograd. Slow and obviously right: the kernel tests compare the
// fused CPU and CUDA kernels with them, in double precision.
#include "tests/support/naive_recurrences.h"

#include <torch/torch.h>

#include <limits>

namespace recurlab::kernels {

using torch::Tensor;

namespace {

// The steps of a time-major tensor (L, ...), or none for an undefined or 1-D one. One unbind
// rather than t[i] at each step: the backward is then one node for all steps, where indexing
// made each step's gradient a zero-filled tensor of the full size (O(L²) at L = 4096).
std::vector<Tensor> stepsOf(const Tensor& t) {
  return t.defined() && t.dim() >= 2 ? t.unbind(0) : std::vector<Tensor>{};
}

}  // namespace

std::vector<Tensor> sruRecurrenceReference(const Tensor& u, const Tensor& x,
                                           const Tensor& weight_c, const Tensor& bias,
                                           const Tensor& c0, const Tensor& mask_c,
                                           const Tensor& mask_pad,
                                           const SruRecurrenceOptions& opt) {
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, out = opt.outputSize();
  const int64_t k = opt.numMatrices();
  const std::vector<Tensor> U = stepsOf(u.view({L, B, out, k}));
  const std::vector<Tensor> X = stepsOf(x);
  const std::vector<Tensor> wc_steps = stepsOf(weight_c), bias_steps = stepsOf(bias);
  // Entries [lo, hi) of a parameter of size 2·out at step t (see the header: per-step copies).
  auto param = [](const Tensor& p, const std::vector<Tensor>& steps, int64_t t, int64_t lo,
                  int64_t hi) {
    return p.dim() == 3 ? steps[t].slice(1, lo, hi) : p.slice(0, lo, hi);
  };
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
      const Tensor f = torch::sigmoid(ut.select(2, 1) + param(weight_c, wc_steps, t, lo, hi) * c +
                                      param(bias, bias_steps, t, lo, hi));
      const Tensor r = torch::sigmoid(ut.select(2, 2) +
                                      param(weight_c, wc_steps, t, out + lo, out + hi) * c +
                                      param(bias, bias_steps, t, out + lo, out + hi));
      Tensor c_new = f * c + (1 - f) * ut.select(2, 0);
      Tensor skip_term;
      if (opt.skip == SruSkip::ScaledInput) skip_term = opt.alpha * X[t].slice(1, lo, hi);
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

std::vector<Tensor> qrnnPoolingReference(const Tensor& u, const Tensor& c0,
                                         const Tensor& zoneout, const Tensor& mask_pad,
                                         const QrnnPoolingOptions& opt) {
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size;
  const std::vector<Tensor> U = stepsOf(u.view({L, B, d, opt.numMatrices()}));
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

std::vector<Tensor> rationalRecurrenceReference(const Tensor& u, const Tensor& weight,
                                                const Tensor& c0, const Tensor& mask_pad,
                                                const RationalRecurrenceOptions& opt) {
  const bool mp = opt.semiring == Semiring::MaxPlus;
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, S = opt.numStates();
  auto plus = [&](const Tensor& a, const Tensor& b) {
    return mp ? torch::where(a >= b, a, b) : a + b;
  };
  auto times = [&](const Tensor& a, const Tensor& b) { return mp ? a + b : a * b; };
  auto gate = [&](const Tensor& x) { return mp ? torch::log_sigmoid(x) : torch::sigmoid(x); };
  const std::vector<Tensor> U = stepsOf(u.view({L, B, d, opt.numMatrices()}));
  const Tensor zero = mp ? torch::full({B, d}, -std::numeric_limits<double>::infinity(),
                                       u.options())
                         : torch::zeros({B, d}, u.options());
  Tensor c1 = c0.defined() ? c0.slice(1, 0, d) : zero;
  Tensor c2 = S == 2 ? (c0.defined() ? c0.slice(1, d, 2 * d) : zero) : Tensor();
  // Pattern F's gates of the weight at step t (per-step copies: see the header).
  const std::vector<Tensor> weight_steps = stepsOf(weight);
  auto weightGate = [&](int64_t t, int64_t i) {
    const Tensor w = weight.dim() == 3 ? weight_steps[t].slice(1, i * d, (i + 1) * d)
                                       : weight.slice(0, i * d, (i + 1) * d);
    return gate(w);
  };
  std::vector<Tensor> hs;
  for (int64_t t = 0; t < L; ++t) {
    const Tensor ut = U[t];
    Tensor rr, p1, p2;
    if (opt.pattern == RationalPattern::F) {
      rr = weightGate(t, 0);
      p1 = weightGate(t, 1);
      p2 = weightGate(t, 2);
    }
    std::vector<Tensor> f(S), w(S);
    for (int64_t s = 0; s < S; ++s) {
      f[s] = gate(ut.select(2, S + s));
      w[s] = mp ? ut.select(2, s) : (1 - torch::sigmoid(ut.select(2, S + s))) * ut.select(2, s);
    }
    Tensor n1 = plus(times(f[0], c1), w[0]);
    Tensor n2, out = n1;
    if (S == 2) {
      const Tensor e = opt.pattern == RationalPattern::F ? plus(c1, rr) : c1;
      n2 = plus(times(f[1], c2), times(e, w[1]));
      out = opt.pattern == RationalPattern::F ? plus(times(p1, n1), times(p2, n2)) : n2;
    }
    Tensor h = torch::tanh(opt.output_gate ? times(gate(ut.select(2, 2 * S)), out) : out);
    if (mask_pad.defined()) {
      const Tensor is_pad = mask_pad[t].to(torch::kBool).unsqueeze(1).expand({B, d});
      n1 = torch::where(is_pad, c1, n1);
      if (S == 2) n2 = torch::where(is_pad, c2, n2);
      h = torch::where(is_pad, torch::zeros_like(h), h);
    }
    c1 = n1;
    c2 = n2;
    hs.push_back(h);
  }
  return {torch::stack(hs), S == 2 ? torch::cat({c1, c2}, 1) : c1};
}

std::vector<Tensor> ngramRecurrenceReference(const Tensor& u, const Tensor& c0,
                                             const Tensor& mask_pad,
                                             const NgramRecurrenceOptions& opt) {
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, n = opt.n;
  const std::vector<Tensor> U = stepsOf(u.view({L, B, d, opt.numMatrices()}));
  std::vector<Tensor> state(n);
  for (int64_t j = 0; j < n; ++j)
    state[j] = c0.defined() ? c0.slice(1, j * d, (j + 1) * d) : torch::zeros({B, d}, u.options());
  std::vector<Tensor> hs;
  for (int64_t t = 0; t < L; ++t) {
    const Tensor f = torch::sigmoid(U[t].select(2, n));
    std::vector<Tensor> next(n);
    for (int64_t j = 0; j < n; ++j) {
      const Tensor w = (1 - f) * U[t].select(2, j);
      next[j] = f * state[j] + (j == 0 ? w : state[j - 1] * w);
    }
    Tensor h = torch::tanh(opt.output_gate ? torch::sigmoid(U[t].select(2, n + 1)) * next[n - 1]
                                           : next[n - 1]);
    if (mask_pad.defined()) {
      const Tensor is_pad = mask_pad[t].to(torch::kBool).unsqueeze(1).expand({B, d});
      for (int64_t j = 0; j < n; ++j) next[j] = torch::where(is_pad, state[j], next[j]);
      h = torch::where(is_pad, torch::zeros_like(h), h);
    }
    state = next;
    hs.push_back(h);
  }
  return {torch::stack(hs), torch::cat(state, 1)};
}

std::vector<Tensor> linearRecurrenceReference(const Tensor& a, const Tensor& b,
                                              const Tensor& h0, const Tensor& mask_pad,
                                              const LinearRecurrenceOptions& opt) {
  const int64_t L = a.size(0), B = a.size(1), d = opt.hidden_size, out = opt.outputSize();
  const Tensor init = h0.defined() ? h0 : torch::zeros({B, out}, a.options());
  std::vector<Tensor> h_dirs, last_dirs;
  for (int64_t dir = 0; dir < opt.directions(); ++dir) {
    const int64_t lo = dir * d, hi = lo + d;
    Tensor h = init.slice(1, lo, hi);
    std::vector<Tensor> hs(L);
    for (int64_t step = 0; step < L; ++step) {
      const int64_t t = dir == 1 ? L - 1 - step : step;
      Tensor next = a[t].slice(1, lo, hi) * h + b[t].slice(1, lo, hi);
      if (mask_pad.defined()) {
        const Tensor is_pad = mask_pad[t].to(torch::kBool).unsqueeze(1).expand({B, d});
        next = torch::where(is_pad, h, next);
      }
      h = next;
      hs[t] = h;
    }
    h_dirs.push_back(L > 0 ? torch::stack(hs) : torch::zeros({0, B, d}, a.options()));
    last_dirs.push_back(h);
  }
  return {torch::cat(h_dirs, 2), torch::cat(last_dirs, 1)};
}

std::vector<Tensor> gatedLinearAttentionReference(const Tensor& q, const Tensor& k,
                                                  const Tensor& v, const Tensor& log_alpha,
                                                  const Tensor& s0, const Tensor& mask_pad) {
  const int64_t L = q.size(0), B = q.size(1), H = q.size(2), dk = q.size(3), dv = v.size(3);
  Tensor S = s0.defined() ? s0 : torch::zeros({B, H, dk, dv}, q.options());
  const std::vector<Tensor> qs = stepsOf(q), ks = stepsOf(k), vs = stepsOf(v),
                            gs = stepsOf(log_alpha);
  std::vector<Tensor> os;
  for (int64_t t = 0; t < L; ++t) {
    // (B, H, d_k, 1) ⊙ (B, H, d_k, d_v) + outer(k_t, v_t)
    Tensor next = torch::exp(gs[t]).unsqueeze(3) * S + ks[t].unsqueeze(3) * vs[t].unsqueeze(2);
    Tensor o = (qs[t].unsqueeze(3) * next).sum(2);  // Σ_k q_tk S_t[k, :]
    if (mask_pad.defined()) {
      const Tensor is_pad = mask_pad[t].to(torch::kBool);
      next = torch::where(is_pad.view({B, 1, 1, 1}), S, next);
      o = torch::where(is_pad.view({B, 1, 1}), torch::zeros_like(o), o);
    }
    S = next;
    os.push_back(o);
  }
  return {L > 0 ? torch::stack(os) : torch::zeros({0, B, H, dv}, q.options()), S};
}

}  // namespace recurlab::kernels
