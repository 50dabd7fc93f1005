#pragma once
// One op, any device: kernels/cpu/rational_recurrence.cpp and kernels/cuda/rational_recurrence.cpp
// implement it. The rational recurrences of Peng et al. (2018), App. D (RRNN(B), RRNN(B)m+,
// RRNN(C), RRNN(F)), fused. One kernel design for both semirings: the recurrence is
// written with ⊕ and ⊗, and the semiring fixes the gates.
//                 plus-times (eqs. 23, 25, 26)     max-plus (eq. 24)
//   ⊕, ⊗          +, ·                             max, +
//   zero, one     0, 1                             -inf, 0
//   f_s           σ(u_fs)                          log σ(u_fs)
//   w_s (input)   (1 - f_s) · u_zs                 u_zs
//   o             σ(u_o)                           log σ(u_o)
//   r, p_1, p_2   σ(b_r), σ(b_p1), σ(b_p2)         log σ(·) of the same
//
//   pattern B:  c1_t = f1 ⊗ c1_{t-1} ⊕ w1;                                  c_t = c1_t
//   pattern C:  c1 as B;  c2_t = f2 ⊗ c2_{t-1} ⊕ c1_{t-1} ⊗ w2;              c_t = c2_t
//   pattern F:  c1 as B;  c2_t = f2 ⊗ c2_{t-1} ⊕ (c1_{t-1} ⊕ r) ⊗ w2;
//               c_t = p1 ⊗ c1_t ⊕ p2 ⊗ c2_t      (eq. 26g with its typo fixed)
//   h_t = tanh(o ⊗ c_t) with the output gate, tanh(c_t) without it (our choice: the
//   nonlinearity of eqs. 23e-26i is kept when the optional gate is dropped).
// Max-plus ties: max(a, b) picks its FIRST operand when a >= b, and routes the whole gradient
// to it: the carried path f ⊗ c_{t-1}, c1_{t-1} over r, p1 ⊗ c1 over p2 ⊗ c2.
//
// Layout, time-major (S = number of states: 1 for B, 2 for C and F):
//   u         (L, B, d·k)  per-unit interleaved pre-activations, column j·k + q:
//                          B: [z, f, (o)]          (k = 2, 3 with the gate)
//                          C, F: [z1, z2, f1, f2, (o)]  (k = 4, 5 with the gate)
//                          gate biases are added by the layer (U = X·W + b)
//   weight    (3·d)        pattern F only: pre-activations [b_r | b_p1 | b_p2]; else undefined
//   c0        (B, S·d)     initial states [c1 | c2], or undefined for the semiring zero
//   mask_pad  (L, B)       bool/uint8, nonzero = pad step (states carried, h = 0), or undefined
// float32 and float64.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/device_dispatch.h"

namespace recurlab::kernels {

enum class RationalPattern : int64_t { B = 0, C = 1, F = 2 };
enum class Semiring : int64_t { PlusTimes = 0, MaxPlus = 1 };

struct RationalRecurrenceOptions {
  int64_t hidden_size = 0;  // d
  RationalPattern pattern = RationalPattern::B;
  Semiring semiring = Semiring::PlusTimes;
  bool output_gate = false;

  int64_t numStates() const { return pattern == RationalPattern::B ? 1 : 2; }
  int64_t numMatrices() const { return 2 * numStates() + (output_gate ? 1 : 0); }
  int64_t numWeights() const { return pattern == RationalPattern::F ? 3 * hidden_size : 0; }
};

struct RationalForwardResult {
  at::Tensor h;       // (L, B, d)
  at::Tensor c;       // (L, B, S·d), every state [c1 | c2] (saved for backward)
  at::Tensor last_c;  // (B, S·d)
};

struct RationalBackwardResult {
  at::Tensor grad_u;       // (L, B, d·k)
  at::Tensor grad_weight;  // (3·d) for pattern F, else undefined
  at::Tensor grad_c0;      // (B, S·d)
};

// Raw kernels, no autograd, on U's device: the fused CPU loops (kernels/cpu/) or their
// CUDA twins (kernels/cuda/, when built). grad_h / grad_last_c may be undefined (zero). Both
// check their arguments, throwing c10::Error that names the op, the tensor, its shape and what
// was expected.
RationalForwardResult rationalRecurrenceForward(const at::Tensor& u, const at::Tensor& weight,
                                                const at::Tensor& c0, const at::Tensor& mask_pad,
                                                const RationalRecurrenceOptions& opt);

RationalBackwardResult rationalRecurrenceBackward(const at::Tensor& grad_h,
                                                  const at::Tensor& grad_last_c,
                                                  const at::Tensor& u, const at::Tensor& weight,
                                                  const at::Tensor& c0, const at::Tensor& c,
                                                  const at::Tensor& mask_pad,
                                                  const RationalRecurrenceOptions& opt);

// Differentiable fused recurrence. Returns {h, last_c}; gradients flow to u, weight and c0.
std::vector<at::Tensor> rationalRecurrence(const at::Tensor& u, const at::Tensor& weight,
                                           const at::Tensor& c0, const at::Tensor& mask_pad,
                                           const RationalRecurrenceOptions& opt);

namespace detail {

// One call's inputs as the op hands them to its implementations (kernels/cpu/, kernels/cuda/):
// checked, contiguous, on U's device; optional ones undefined; mask_pad bool or uint8.
struct RationalRecurrenceTensors {
  at::Tensor u, weight, c0, mask_pad;
};

// The implementations the op dispatches to: the fused CPU loops
// (kernels/cpu/rational_recurrence.cpp) and their CUDA twins (kernels/cuda/rational_recurrence.cpp,
// defined only in a build with the CUDA kernels, RECURLAB_WITH_CUDA). No autograd. They trust their
// tensors, which the op has checked (kernels/input_checks.h): dtypes the device's kernel takes,
// every tensor on U's device, shapes as the options say.
RationalForwardResult rationalRecurrenceCpuForward(const RationalRecurrenceTensors& in,
                                                   const RationalRecurrenceOptions& opt);
RationalBackwardResult rationalRecurrenceCpuBackward(const BackwardTensors& grads,
                                                     const RationalRecurrenceTensors& in,
                                                     const RationalRecurrenceOptions& opt);
RationalForwardResult rationalRecurrenceCudaForward(const RationalRecurrenceTensors& in,
                                                    const RationalRecurrenceOptions& opt);
RationalBackwardResult rationalRecurrenceCudaBackward(const BackwardTensors& grads,
                                                      const RationalRecurrenceTensors& in,
                                                      const RationalRecurrenceOptions& opt);

}  // namespace detail
}  // namespace recurlab::kernels
