#pragma once
// One op, any device: kernels/cpu/ngram_recurrence.cpp and kernels/cuda/ngram_recurrence.cpp
// implement it. The n-gram RCNN recurrence of Peng et al. (2018), Prop. 12 (n = 1..4):
//   f = σ(u_f),  w_j = (1 - f) ⊙ u_zj                      (φ = f, μ_j = w_j)
//   c^(0) ≡ 1,   c^(j)_t = f ⊙ c^(j)_{t-1} + c^(j-1)_{t-1} ⊙ w_j,   j = 1..n
//   h_t = tanh(o ⊙ c^(n)_t), o = σ(u_o), with the output gate; tanh(c^(n)_t) without it.
// c^(n) is the forward algorithm of the (n+1)-state WFSA of Prop. 12. n = 1 is RRNN(B).
//
// Layout, time-major:
//   u         (L, B, d·k)  per-unit interleaved pre-activations [z1, ..., zn, f, (o)],
//                          k = n + 1 (+1 with the gate); gate biases added by the layer
//   c0        (B, n·d)     initial states [c^(1) | ... | c^(n)], or undefined for zeros
//   mask_pad  (L, B)       bool/uint8, nonzero = pad step (states carried, h = 0), or undefined
// float32 and float64. No parameters: gradients go to u and c0 only.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/device_dispatch.h"

namespace recurlab::kernels {

constexpr int64_t kMaxNgramOrder = 4;  // the largest n

struct NgramRecurrenceOptions {
  int64_t hidden_size = 0;  // d
  int64_t n = 2;            // 1..kMaxNgramOrder
  bool output_gate = false;

  int64_t numMatrices() const { return n + 1 + (output_gate ? 1 : 0); }
};

struct NgramForwardResult {
  at::Tensor h;       // (L, B, d)
  at::Tensor c;       // (L, B, n·d), every state [c^(1) | ... | c^(n)] (saved for backward)
  at::Tensor last_c;  // (B, n·d)
};

struct NgramBackwardResult {
  at::Tensor grad_u;   // (L, B, d·k)
  at::Tensor grad_c0;  // (B, n·d)
};

// Raw kernels, no autograd, on U's device: the fused CPU loops (kernels/cpu/) or their
// CUDA twins (kernels/cuda/, when built). grad_h / grad_last_c may be undefined (zero). Both
// check their arguments, throwing c10::Error that names the op, the tensor, its shape and what
// was expected.
NgramForwardResult ngramRecurrenceForward(const at::Tensor& u, const at::Tensor& c0,
                                          const at::Tensor& mask_pad,
                                          const NgramRecurrenceOptions& opt);

NgramBackwardResult ngramRecurrenceBackward(const at::Tensor& grad_h,
                                            const at::Tensor& grad_last_c, const at::Tensor& u,
                                            const at::Tensor& c0, const at::Tensor& c,
                                            const at::Tensor& mask_pad,
                                            const NgramRecurrenceOptions& opt);

// Differentiable fused recurrence. Returns {h, last_c}; gradients flow to u and c0.
std::vector<at::Tensor> ngramRecurrence(const at::Tensor& u, const at::Tensor& c0,
                                        const at::Tensor& mask_pad,
                                        const NgramRecurrenceOptions& opt);

namespace detail {

// One call's inputs as the op hands them to its implementations (kernels/cpu/, kernels/cuda/):
// checked, contiguous, on U's device; optional ones undefined; mask_pad bool or uint8.
struct NgramRecurrenceTensors {
  at::Tensor u, c0, mask_pad;
};

// The implementations the op dispatches to: the fused CPU loops (kernels/cpu/ngram_recurrence.cpp)
// and their CUDA twins (kernels/cuda/ngram_recurrence.cpp, defined only in a build with the CUDA
// kernels, RECURLAB_WITH_CUDA). No autograd. They trust their tensors, which the op has checked
// (kernels/input_checks.h): dtypes the device's kernel takes, every tensor on U's device, shapes
// as the options say.
NgramForwardResult ngramRecurrenceCpuForward(const NgramRecurrenceTensors& in,
                                             const NgramRecurrenceOptions& opt);
NgramBackwardResult ngramRecurrenceCpuBackward(const BackwardTensors& grads,
                                               const NgramRecurrenceTensors& in,
                                               const NgramRecurrenceOptions& opt);
NgramForwardResult ngramRecurrenceCudaForward(const NgramRecurrenceTensors& in,
                                              const NgramRecurrenceOptions& opt);
NgramBackwardResult ngramRecurrenceCudaBackward(const BackwardTensors& grads,
                                                const NgramRecurrenceTensors& in,
                                                const NgramRecurrenceOptions& opt);

}  // namespace detail
}  // namespace recurlab::kernels
