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
// Two ways to compute it, the same values to rounding, both differentiable through LibTorch's
// autograd (every operation below is a LibTorch op):
//   - step by step: the recurrence above, one step at a time (gatedLinearAttentionStep, also what
//     incremental decoding calls);
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
//     over d_k elementwise with the exponent G_tk - G_ik <= 0 (i <= t).
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

// chunk_length: step by step, or chunks of n > 0 steps (n >= L: the whole sequence as one chunk,
// the parallel form of §4.1).
constexpr int64_t kGlaStepByStep = 0;
// The default chunks and sub-chunks are shorter than the paper's 64 and 16, for the CPU: the
// scores within a sub-chunk are elementwise over (c, c, d_k) and each key is repeated once per
// later sub-chunk, both growing with the lengths, while the carry loop over more chunks costs
// little (docs/gated-linear-attention.md has the timings). Not timed on a GPU.
constexpr int64_t kGlaDefaultChunkLength = 16;
// The secondary chunks' length (at most; the whole chunk when shorter).
constexpr int64_t kGlaSubChunkLength = 8;

struct GatedLinearAttentionOptions {
  int64_t chunk_length = kGlaDefaultChunkLength;
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

}  // namespace recurlab::kernels
