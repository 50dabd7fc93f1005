#pragma once
// One op, any device: kernels/cpu/sru_recurrence.cpp and kernels/cuda/sru_recurrence.cpp
// implement it. The SRU elementwise recurrence (Lei et al. 2018, "Simple Recurrent Units for Highly
// Parallelizable Recurrence").
//
// Layout follows the reference (asappresearch/sru v2.6), time-major:
//   u         (L, B, out·k)  U = X·W with the k sub-matrices interleaved per unit
//   x         (L, B, out)    skip input, used when skip == ScaledInput (else undefined)
//   weight_c  (2·out)        peephole vectors [v_f | v_r]
//   bias      (2·out)        [b_f | b_r]
//   c0        (B, out)       initial state, or undefined for zeros
//   mask_c    (B, out)       variational dropout mask on the r⊙c branch, or undefined
//   mask_pad  (L, B)         bool/uint8, nonzero = pad step, or undefined
// where out = dirs·d. Columns with unit index >= d (bidirectional) walk time backwards.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/device_dispatch.h"

namespace recurlab::kernels {

enum class SruSkip : int64_t {
  None = 0,               // h = r ⊙ c
  ScaledInput = 1,        // h = r ⊙ c + (1 - r) ⊙ α·x        (k = 3)
  LearnedProjection = 2,  // h = r ⊙ c + (1 - r) ⊙ u3 (= W'x)  (k = 4)
};

struct SruRecurrenceOptions {
  int64_t hidden_size = 0;  // d, per direction
  bool bidirectional = false;
  SruSkip skip = SruSkip::ScaledInput;
  double alpha = 1.0;  // scale of the skip input (ScaledInput only)

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t outputSize() const { return directions() * hidden_size; }
  int64_t numMatrices() const { return skip == SruSkip::LearnedProjection ? 4 : 3; }
};

struct SruForwardResult {
  at::Tensor h;       // (L, B, out)
  at::Tensor c;       // (L, B, out), every state (saved for backward)
  at::Tensor last_c;  // (B, out)
};

struct SruBackwardResult {
  at::Tensor grad_u, grad_x, grad_weight_c, grad_bias, grad_c0;
};

// Raw kernels, no autograd, on U's device: the fused CPU loops (kernels/cpu/) or their
// CUDA twins (kernels/cuda/, when built). grad_h / grad_last_c may be undefined (zero). Both
// check their arguments, throwing c10::Error that names the op, the tensor, its shape and what
// was expected.
SruForwardResult sruRecurrenceForward(const at::Tensor& u, const at::Tensor& x,
                                      const at::Tensor& weight_c, const at::Tensor& bias,
                                      const at::Tensor& c0, const at::Tensor& mask_c,
                                      const at::Tensor& mask_pad,
                                      const SruRecurrenceOptions& opt);

SruBackwardResult sruRecurrenceBackward(const at::Tensor& grad_h, const at::Tensor& grad_last_c,
                                        const at::Tensor& u, const at::Tensor& x,
                                        const at::Tensor& weight_c, const at::Tensor& bias,
                                        const at::Tensor& c0, const at::Tensor& c,
                                        const at::Tensor& mask_c, const at::Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt);

// Differentiable fused recurrence (one torch::autograd::Function for every device). Returns {h,
// last_c}. Gradients flow to u, x, weight_c, bias and c0; the masks are constants.
std::vector<at::Tensor> sruRecurrence(const at::Tensor& u, const at::Tensor& x,
                                      const at::Tensor& weight_c, const at::Tensor& bias,
                                      const at::Tensor& c0, const at::Tensor& mask_c,
                                      const at::Tensor& mask_pad,
                                      const SruRecurrenceOptions& opt);

namespace detail {

// One call's inputs as the op hands them to its implementations (kernels/cpu/, kernels/cuda/):
// checked, contiguous, on U's device; optional ones undefined (x unless the skip is
// ScaledInput); mask_pad bool or uint8.
struct SruTensors {
  at::Tensor u, x, weight_c, bias, c0, mask_c, mask_pad;
};

// The implementations the op dispatches to: the fused CPU loops (kernels/cpu/sru_recurrence.cpp)
// and their CUDA twins (kernels/cuda/sru_recurrence.cpp, defined only in a build with the CUDA
// kernels, RECURLAB_WITH_CUDA). No autograd. They trust their tensors, which the op has checked
// (kernels/input_checks.h): dtypes the device's kernel takes, every tensor on U's device, shapes
// as the options say.
SruForwardResult sruRecurrenceCpuForward(const SruTensors& in, const SruRecurrenceOptions& opt);
SruBackwardResult sruRecurrenceCpuBackward(const BackwardTensors& grads, const SruTensors& in,
                                           const SruRecurrenceOptions& opt);
SruForwardResult sruRecurrenceCudaForward(const SruTensors& in, const SruRecurrenceOptions& opt);
SruBackwardResult sruRecurrenceCudaBackward(const BackwardTensors& grads, const SruTensors& in,
                                            const SruRecurrenceOptions& opt);

}  // namespace detail
}  // namespace recurlab::kernels
