// Gated linear attention (kernels/gated_linear_attention.h): argument checks, the step, and the
// chunkwise-parallel form as LibTorch operations (matrix products where the chunkwise form has
// them; autograd gives the backward), and the autograd node over the fused CPU kernel
// (kernels/cpu/gated_linear_attention.cpp) that runs the step-by-step form on the CPU.
#include "kernels/gated_linear_attention.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <algorithm>
#include <limits>

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "gated linear attention";

int64_t ceilDiv(int64_t n, int64_t k) { return (n + k - 1) / k; }

void checkSameAs(const Tensor& t, const char* name, const Tensor& q, c10::IntArrayRef want) {
  TORCH_CHECK(t.defined(), kName, ": ", name, " is undefined, expected shape ", want);
  TORCH_CHECK(t.sizes() == want, kName, ": ", name, " has shape ", t.sizes(), ", expected ",
              want);
  // float32, bfloat16 and float16 mix (under autocast q, k, v come from matmuls in bfloat16,
  // the gate and a carried state in float32): all are computed in float32.
  TORCH_CHECK(t.is_floating_point() &&
                  (t.scalar_type() == torch::kDouble) == (q.scalar_type() == torch::kDouble),
              kName, ": ", name, " has dtype ", t.scalar_type(), ", expected ",
              q.scalar_type() == torch::kDouble ? "float64 as q"
                                                : "float32, bfloat16 or float16 as q");
  TORCH_CHECK(t.device() == q.device(), kName, ": ", name, " is on ", t.device(),
              ", expected q's device ", q.device());
}

// q, k, log_alpha (L, B, H, d_k), v (L, B, H, d_v), s0 (B, H, d_k, d_v), mask_pad (L, B).
void checkInputs(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& log_alpha,
                 const Tensor& s0, const Tensor& mask_pad, int64_t chunk_length) {
  TORCH_CHECK(chunk_length >= kGlaChunkLengthByDevice, kName,
              ": chunk_length must be -1 (by device), 0 (step by step) or positive, got ",
              chunk_length);
  TORCH_CHECK(q.defined() && q.dim() == 4, kName, ": q has shape ",
              q.defined() ? q.sizes() : c10::IntArrayRef{}, ", expected (L, B, H, d_k)");
  TORCH_CHECK(q.is_floating_point(), kName, ": q has dtype ", q.scalar_type(),
              ", expected a floating-point dtype");
  const int64_t L = q.size(0), B = q.size(1), H = q.size(2), dk = q.size(3);
  TORCH_CHECK(H > 0 && dk > 0, kName, ": q has shape ", q.sizes(),
              ", expected at least one head and one key unit");
  checkSameAs(k, "k", q, {L, B, H, dk});
  checkSameAs(log_alpha, "log_alpha", q, {L, B, H, dk});
  TORCH_CHECK(v.defined() && v.dim() == 4 && v.size(0) == L && v.size(1) == B &&
                  v.size(2) == H && v.size(3) > 0,
              kName, ": v has shape ", v.defined() ? v.sizes() : c10::IntArrayRef{},
              ", expected (", L, ", ", B, ", ", H, ", d_v > 0)");
  const int64_t dv = v.size(3);
  checkSameAs(v, "v", q, {L, B, H, dv});
  if (s0.defined()) checkSameAs(s0, "s0", q, {B, H, dk, dv});
  if (mask_pad.defined()) {
    TORCH_CHECK(mask_pad.sizes() == c10::IntArrayRef({L, B}), kName, ": mask_pad has shape ",
                mask_pad.sizes(), ", expected (", L, ", ", B, ")");
    TORCH_CHECK(mask_pad.scalar_type() == torch::kBool || mask_pad.scalar_type() == torch::kByte,
                kName, ": mask_pad has dtype ", mask_pad.scalar_type(), ", expected bool or uint8");
    TORCH_CHECK(mask_pad.device() == q.device(), kName, ": mask_pad is on ", mask_pad.device(),
                ", expected q's device ", q.device());
  }
}

torch::Dtype computeTypeOf(const Tensor& q) {
  return q.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
}

// One step on inputs whose pad rows are already the identity (q = k = g = 0).
std::vector<Tensor> stepOn(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                           const Tensor& state) {
  const Tensor next = torch::exp(g).unsqueeze(-1) * state + k.unsqueeze(-1) * v.unsqueeze(-2);
  return {torch::matmul(q.unsqueeze(-2), next).squeeze(-2), next};
}

// The chunkwise-parallel form (the header's equations) on (L, B, H, d) inputs whose pad steps
// are the identity; s0 defined. Returns {o (L, B, H, d_v), last state}.
std::vector<Tensor> chunkwise(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                              const Tensor& s0, int64_t C) {
  const int64_t L = q.size(0), B = q.size(1), H = q.size(2), dk = q.size(3), dv = v.size(3);
  const int64_t N = ceilDiv(L, C), c = std::min(C, kGlaSubChunkLength), P = ceilDiv(C, c);
  const int64_t Cp = P * c;  // a chunk's steps with identity steps appended up to P·c
  const auto opts = q.options();
  // (L, B, H, d) -> (B, H, N, Cp, d): identity steps (zeros) after the sequence's end and after
  // each chunk's C steps.
  const auto blocks = [&](const Tensor& x) {
    const int64_t d = x.size(3);
    Tensor t = torch::constant_pad_nd(x.permute({1, 2, 0, 3}), {0, 0, 0, N * C - L});
    t = t.reshape({B, H, N, C, d});
    return Cp > C ? torch::constant_pad_nd(t, {0, 0, 0, Cp - C}) : t;
  };
  const Tensor qb = blocks(q), kb = blocks(k), vb = blocks(v), gb = blocks(g);
  const Tensor G = gb.cumsum(3);  // G_t within each chunk, (B, H, N, Cp, d_k)
  const double neg_inf = -std::numeric_limits<double>::infinity();

  // Scores of each query sub-chunk against the keys of earlier sub-chunks: one matrix product
  // per sub-chunk, with G_r = G where the sub-chunk starts (zero for the first).
  const Tensor Gs = G.reshape({B, H, N, P, c, dk});
  const Tensor Gr =
      torch::cat({torch::zeros({B, H, N, 1, dk}, opts), Gs.slice(3, 0, P - 1).select(4, c - 1)}, 3)
          .unsqueeze(4);  // (B, H, N, P, 1, d_k)
  const Tensor q_scaled = qb.reshape({B, H, N, P, c, dk}) * torch::exp(Gs - Gr);
  const auto long_opts = torch::TensorOptions().dtype(torch::kLong).device(q.device());
  const Tensor earlier =
      torch::arange(Cp, long_opts).view({1, Cp}) < (torch::arange(P, long_opts) * c).view({P, 1});
  const Tensor k_scaled =
      kb.unsqueeze(3) *
      torch::exp((Gr - G.unsqueeze(3)).masked_fill(earlier.logical_not().view({P, Cp, 1}),
                                                  neg_inf));  // (B, H, N, P, Cp, d_k)
  const Tensor across = torch::matmul(q_scaled, k_scaled.transpose(-1, -2));  // (…, P, c, Cp)
  // Scores within a sub-chunk: Σ_k q_tk k_ik e^{G_tk - G_ik} for i <= t.
  const Tensor causal = torch::arange(c, long_opts).view({c, 1}) >= torch::arange(c, long_opts);
  const Tensor within_exponent = (Gs.unsqueeze(5) - Gs.unsqueeze(4))
                                     .masked_fill(causal.logical_not().view({c, c, 1}), neg_inf);
  const Tensor within = (qb.reshape({B, H, N, P, c, 1, dk}) * kb.reshape({B, H, N, P, 1, c, dk}) *
                         torch::exp(within_exponent))
                            .sum(-1);  // (…, P, c, c)
  const Tensor diagonal = torch::eye(P, opts).view({P, 1, P, 1});
  const Tensor scores =
      (across.reshape({B, H, N, P, c, P, c}) + within.unsqueeze(5) * diagonal).reshape({B, H, N, Cp, Cp});
  Tensor o = torch::matmul(scores, vb);  // (B, H, N, Cp, d_v)

  // Across chunks: S_C = Diag(e^{G_C}) S_0 + (K ⊙ e^{G_C - G})^T V, one chunk after another.
  const Tensor G_end = G.select(3, Cp - 1);  // (B, H, N, d_k)
  const Tensor updates =
      torch::matmul((kb * torch::exp(G_end.unsqueeze(3) - G)).transpose(-1, -2), vb);
  const Tensor decay = torch::exp(G_end).unsqueeze(-1);  // (B, H, N, d_k, 1)
  std::vector<Tensor> incoming;
  incoming.reserve(N);
  // unbind, not select(2, n): each select's backward writes a zero tensor of all N chunks, so
  // the loop's backward would grow as N² (at L = 512, chunks of 16: 2.4 times the forward).
  const std::vector<Tensor> chunk_decays = decay.unbind(2), chunk_updates = updates.unbind(2);
  Tensor state = s0;
  for (int64_t n = 0; n < N; ++n) {
    incoming.push_back(state);
    state = chunk_decays[n] * state + chunk_updates[n];
  }
  o = o + torch::matmul(qb * torch::exp(G), torch::stack(incoming, 2));
  o = o.slice(3, 0, C).reshape({B, H, N * C, dv}).slice(2, 0, L).permute({2, 0, 1, 3});
  return {o.contiguous(), state};
}

// The fused CPU kernel under one autograd node: inputs in the compute dtype, pad steps
// already the identity, s0 defined.
class GatedLinearAttentionCpuFunction
    : public torch::autograd::Function<GatedLinearAttentionCpuFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor q,
                                                Tensor k, Tensor v, Tensor g, Tensor s0) {
    RECORD_FUNCTION("recurlab::gated_linear_attention", std::vector<c10::IValue>());
    q = q.contiguous();
    k = k.contiguous();
    v = v.contiguous();
    g = g.contiguous();
    detail::GlaCpuForwardResult res =
        detail::gatedLinearAttentionCpuForward(q, k, v, g, s0.contiguous());
    ctx->save_for_backward({q, k, v, g, res.checkpoints});
    return {res.o, res.last_state};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    RECORD_FUNCTION("recurlab::gated_linear_attention_backward", std::vector<c10::IValue>());
    const auto s = ctx->get_saved_variables();
    return detail::gatedLinearAttentionCpuBackward(grads[0].contiguous(), grads[1].contiguous(),
                                                   s[0], s[1], s[2], s[3], s[4]);
  }
};

}  // namespace

std::vector<Tensor> gatedLinearAttention(const Tensor& q, const Tensor& k, const Tensor& v,
                                         const Tensor& log_alpha, const Tensor& s0,
                                         const Tensor& mask_pad,
                                         const GatedLinearAttentionOptions& opt) {
  RECORD_FUNCTION("recurlab::gatedLinearAttention", std::vector<c10::IValue>());
  checkInputs(q, k, v, log_alpha, s0, mask_pad, opt.chunk_length);
  const int64_t L = q.size(0), B = q.size(1), H = q.size(2), dk = q.size(3), dv = v.size(3);
  const torch::Dtype compute = computeTypeOf(q);
  Tensor qc = q.to(compute), kc = k.to(compute), vc = v.to(compute), gc = log_alpha.to(compute);
  if (mask_pad.defined()) {
    // A pad step is the identity: no key (no update), no decay, no query (a zero output).
    const Tensor is_pad = mask_pad.to(torch::kBool).reshape({L, B, 1, 1});
    qc = qc.masked_fill(is_pad, 0);
    kc = kc.masked_fill(is_pad, 0);
    gc = gc.masked_fill(is_pad, 0);
  }
  const Tensor state0 = s0.defined() ? s0.to(compute) : torch::zeros({B, H, dk, dv}, qc.options());
  int64_t chunk_length = opt.chunk_length;
  if (chunk_length == kGlaChunkLengthByDevice)
    chunk_length = qc.device().is_cpu() ? kGlaStepByStep : kGlaGpuChunkLength;
  std::vector<Tensor> res;
  if (L == 0) {
    res = {torch::zeros({0, B, H, dv}, qc.options()), state0};
  } else if (chunk_length == kGlaStepByStep && qc.device().is_cpu() && opt.fused_cpu_kernel) {
    res = GatedLinearAttentionCpuFunction::apply(qc, kc, vc, gc, state0);
  } else if (chunk_length == kGlaStepByStep) {
    // One unbind per input rather than indexing each step: one backward node for all steps.
    const std::vector<Tensor> qs = qc.unbind(0), ks = kc.unbind(0), vs = vc.unbind(0),
                              gs = gc.unbind(0);
    std::vector<Tensor> outputs;
    outputs.reserve(L);
    Tensor state = state0;
    for (int64_t t = 0; t < L; ++t) {
      std::vector<Tensor> step = stepOn(qs[t], ks[t], vs[t], gs[t], state);
      outputs.push_back(step[0]);
      state = step[1];
    }
    res = {torch::stack(outputs), state};
  } else {
    res = chunkwise(qc, kc, vc, gc, state0, chunk_length);
  }
  return {res[0].to(q.scalar_type()), res[1].to(s0.defined() ? s0.scalar_type() : q.scalar_type())};
}

std::vector<Tensor> gatedLinearAttentionStep(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const Tensor& log_alpha, const Tensor& state,
                                             const Tensor& mask_pad) {
  const auto one = [](const Tensor& t) { return t.defined() ? t.unsqueeze(0) : t; };
  TORCH_CHECK(q.defined() && q.dim() == 3, kName, ": the step's q has shape ",
              q.defined() ? q.sizes() : c10::IntArrayRef{}, ", expected (B, H, d_k)");
  checkInputs(one(q), one(k), one(v), one(log_alpha), state, one(mask_pad), kGlaStepByStep);
  const int64_t B = q.size(0), H = q.size(1), dk = q.size(2), dv = v.size(2);
  const torch::Dtype compute = computeTypeOf(q);
  Tensor qc = q.to(compute), kc = k.to(compute), vc = v.to(compute), gc = log_alpha.to(compute);
  if (mask_pad.defined()) {
    const Tensor is_pad = mask_pad.to(torch::kBool).reshape({B, 1, 1});
    qc = qc.masked_fill(is_pad, 0);
    kc = kc.masked_fill(is_pad, 0);
    gc = gc.masked_fill(is_pad, 0);
  }
  const Tensor s = state.defined() ? state.to(compute) : torch::zeros({B, H, dk, dv}, qc.options());
  const std::vector<Tensor> res = stepOn(qc, kc, vc, gc, s);
  return {res[0].to(q.scalar_type()),
          res[1].to(state.defined() ? state.scalar_type() : q.scalar_type())};
}

}  // namespace recurlab::kernels
