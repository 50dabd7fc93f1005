#pragma once
// Naive references of the fused recurrences, for tests: a loop over time with plain tensor ops
// and autograd, on any device and dtype. Same arguments and outputs ({h, last_c}) as the
// differentiable ops of kernels/*.h; the arguments are not checked (the ops check theirs).
//
// The parameters (SRU weight_c and bias, the rational recurrence's weight) may also be given
// per step and batch row, shaped (L, B, size): step t of row b then uses [t][b]. Autograd then
// returns each step's term of the parameter gradient separately (the ordinary gradient is
// their sum over L and B), which rounding bounds need (tests/support/rounding_bound.h).
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/gated_linear_attention.h"
#include "kernels/linear_recurrence.h"
#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"

namespace recurlab::kernels {

std::vector<at::Tensor> sruRecurrenceReference(const at::Tensor& u, const at::Tensor& x,
                                               const at::Tensor& weight_c,
                                               const at::Tensor& bias, const at::Tensor& c0,
                                               const at::Tensor& mask_c,
                                               const at::Tensor& mask_pad,
                                               const SruRecurrenceOptions& opt);

std::vector<at::Tensor> qrnnPoolingReference(const at::Tensor& u, const at::Tensor& c0,
                                             const at::Tensor& zoneout,
                                             const at::Tensor& mask_pad,
                                             const QrnnPoolingOptions& opt);

std::vector<at::Tensor> rationalRecurrenceReference(const at::Tensor& u, const at::Tensor& weight,
                                                    const at::Tensor& c0,
                                                    const at::Tensor& mask_pad,
                                                    const RationalRecurrenceOptions& opt);

std::vector<at::Tensor> ngramRecurrenceReference(const at::Tensor& u, const at::Tensor& c0,
                                                 const at::Tensor& mask_pad,
                                                 const NgramRecurrenceOptions& opt);

// h_t = a_t ⊙ h_{t-1} + b_t, a pad step keeping the state (opt.chunk_length is ignored).
std::vector<at::Tensor> linearRecurrenceReference(const at::Tensor& a, const at::Tensor& b,
                                                  const at::Tensor& h0,
                                                  const at::Tensor& mask_pad,
                                                  const LinearRecurrenceOptions& opt);

// Gated linear attention (kernels/gated_linear_attention.h) step by step, each step as the
// paper writes it (Yang et al. 2024, §4.1): S_t = Diag(α_t) S_{t-1} + k_t^T v_t, o_t = q_t S_t,
// α_t = exp(log_alpha_t); at a pad step S is kept and o is zero. Returns {o, last state}.
std::vector<at::Tensor> gatedLinearAttentionReference(const at::Tensor& q, const at::Tensor& k,
                                                      const at::Tensor& v,
                                                      const at::Tensor& log_alpha,
                                                      const at::Tensor& s0,
                                                      const at::Tensor& mask_pad);

}  // namespace recurlab::kernels
