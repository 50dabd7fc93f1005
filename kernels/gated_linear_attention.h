#pragma once
// Gated linear attention (Yang et al. 2024, "Gated Linear Attention Transformers with
// Hardware-Efficient Training", §4): a linear attention whose d_k × d_v matrix state decays
// through a data-dependent diagonal gate α_t ∈ (0, 1]^{d_k}, per batch row and head:
//
//   S_t = Diag(α_t) S_{t-1} + k_t^T v_t,   o_t = q_t S_t
//
// with q_t, k_t, α_t ∈ R^{d_k} and v_t, o_t ∈ R^{d_v} (row vectors). The gate enters as its
// logarithm g_t = log α_t <= 0, so that products of gates are sums (docs/linear-recurrences.md).
//
// Two ways to compute it, the same values to rounding, both differentiable:
//   - step by step: the recurrence above, one step at a time. On the CPU a fused kernel
//     (kernels/cpu/gated_linear_attention.cpp) walks each row and head with its state in cache,
//     forward and backward (the backward recomputes the states from checkpoints every
//     kGlaCheckpointSteps steps); elsewhere LibTorch ops (gatedLinearAttentionStep, also what
//     incremental decoding calls), differentiated by autograd;
//   - chunkwise parallel (§4.2-4.3): the sequence in chunks of C steps. With G_t the cumulative
//     sum of g within the chunk (G_0 = 0 at its start) and S_0 the state entering it,
//       o_t = (q_t ⊙ e^{G_t}) S_0 + Σ_{i<=t} [Σ_k q_tk k_ik e^{G_tk - G_ik}] v_i,
//       S_C = Diag(e^{G_C}) S_0 + (K ⊙ e^{G_C - G})^T V,
//     the second term of o as matrix products inside the chunk and the carry S_0 -> S_C as a
//     recurrence over the chunks. The intra-chunk scores use the paper's secondary chunking
//     (§4.3): sub-chunks of c = min(C, 8) steps; a query sub-chunk's scores against the keys of
//     earlier sub-chunks are one matrix product of (q ⊙ e^{G - G_r}) and (k ⊙ e^{G_r - G}), G_r
//     the cumulative gate where the query sub-chunk starts, so that every exponent is <= 0 (no
//     overflow however small the gates); a sub-chunk's scores against its own keys are summed
//     over d_k elementwise with the exponent G_tk - G_ik <= 0 (i <= t). LibTorch ops and
//     autograd on every device.
//
// Layout, time-major:
//   q, log_alpha  (L, B, H, d_k)     log_alpha <= 0 (not checked: a positive value amplifies)
//   k             (L, B, H, d_k)
//   v             (L, B, H, d_v)
//   s0            (B, H, d_k, d_v)   initial state, or undefined for zeros
//   mask_pad      (L, B)             bool/uint8, nonzero = pad step, or undefined. A pad step is
//                                    the identity (α = 1, k = 0): the state is frozen, and o is
//                                    zero there.
// float64, or float32, bfloat16 and float16 in any mix (autocast gives q, k, v in bfloat16 and
// keeps the gate and a carried state in float32): computed in float32, o cast back to q's dtype,
// the last state to s0's (q's without s0), so a float32 state stays float32 from segment to
// segment (float64 inputs: all in float64).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace recurlab::kernels {

// chunk_length: by device (the default), step by step, or chunks of n > 0 steps (n >= L: the
// whole sequence as one chunk, the parallel form of §4.1). By device is step by step on the
// CPU, where the fused kernel walks time faster than the chunks' many small matrix products and
// elementwise passes (1.5-1.8 times at l 100 and 512, d 256, docs/gated-linear-attention.md), and
// chunks of kGlaGpuChunkLength elsewhere.
constexpr int64_t kGlaChunkLengthByDevice = -1;
constexpr int64_t kGlaStepByStep = 0;
// The chunks by device picks off the CPU. Shorter than the paper's 64 (in sub-chunks of 16):
// on the CPU, before the fused kernel, 16 in sub-chunks of 8 was the faster (the scores within a
// sub-chunk are elementwise over (c, c, d_k) and each key is repeated once per later sub-chunk,
// both growing with the lengths). Not timed on a GPU.
constexpr int64_t kGlaGpuChunkLength = 16;
// The secondary chunks' length (at most; the whole chunk when shorter).
constexpr int64_t kGlaSubChunkLength = 8;
// The fused CPU kernel keeps the state entering every kGlaCheckpointSteps-th step for its
// backward (ceil(L / 16) states instead of L), which recomputes the steps between.
constexpr int64_t kGlaCheckpointSteps = 16;

struct GatedLinearAttentionOptions {
  int64_t chunk_length = kGlaChunkLengthByDevice;
  // Step by step on the CPU: the fused kernel; false runs the LibTorch step loop that every
  // other device runs, so that a CPU test covers that loop too.
  bool fused_cpu_kernel = true;
};

// Differentiable. Returns {o (L, B, H, d_v), last state (B, H, d_k, d_v)}: the state after each
// row's last real step. Checks its arguments, throwing c10::Error naming the tensor, its shape
// and what was expected.
std::vector<at::Tensor> gatedLinearAttention(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v, const at::Tensor& log_alpha,
                                             const at::Tensor& s0, const at::Tensor& mask_pad,
                                             const GatedLinearAttentionOptions& opt);

// One step for incremental decoding: q, k, log_alpha (B, H, d_k), v (B, H, d_v), state
// (B, H, d_k, d_v) or undefined (zeros), mask_pad (B) or undefined. Returns {o (B, H, d_v),
// next state}; a pad row keeps its state and outputs zeros. Differentiable.
std::vector<at::Tensor> gatedLinearAttentionStep(const at::Tensor& q, const at::Tensor& k,
                                                 const at::Tensor& v, const at::Tensor& log_alpha,
                                                 const at::Tensor& state,
                                                 const at::Tensor& mask_pad);

namespace detail {

// The fused step-by-step kernel on the CPU (kernels/cpu/gated_linear_attention.cpp), no
// autograd: q, k, log_alpha (L, B, H, d_k), v (L, B, H, d_v), s0 (B, H, d_k, d_v), all
// contiguous, float32 or float64 alike, pad steps already the identity (q = k = log α = 0).
struct GlaCpuForwardResult {
  at::Tensor o;            // (L, B, H, d_v)
  at::Tensor last_state;   // (B, H, d_k, d_v)
  at::Tensor checkpoints;  // (⌈L / kGlaCheckpointSteps⌉, B, H, d_k, d_v): the state entering
                           // steps 0, 16, 32, ...
};
GlaCpuForwardResult gatedLinearAttentionCpuForward(const at::Tensor& q, const at::Tensor& k,
                                                   const at::Tensor& v,
                                                   const at::Tensor& log_alpha,
                                                   const at::Tensor& s0);

// grad_o (L, B, H, d_v) and grad_last_state (B, H, d_k, d_v), contiguous, as the forward's
// dtype. Returns {grad q, grad k, grad v, grad log_alpha, grad s0}.
std::vector<at::Tensor> gatedLinearAttentionCpuBackward(
    const at::Tensor& grad_o, const at::Tensor& grad_last_state, const at::Tensor& q,
    const at::Tensor& k, const at::Tensor& v, const at::Tensor& log_alpha,
    const at::Tensor& checkpoints);

}  // namespace detail

}  // namespace recurlab::kernels
