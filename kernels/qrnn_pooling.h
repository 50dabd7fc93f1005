#pragma once
// One op, any device: kernels/cpu/qrnn_pooling.cpp and kernels/cuda/qrnn_pooling.cpp implement it.
// QRNN fo-pooling / f-pooling (Bradbury et al. 2017, "Quasi-Recurrent Neural Networks", §2).
//
// Paper convention (NOT salesforce's inverted f): per unit j and step t
//   z = tanh(u_z), f = σ(u_f), o = σ(u_o)
//   g = (1 - f) · m                (m: zoneout mask; m = 0 keeps the old state)
//   c_t = (1 - g) ⊙ c_{t-1} + g ⊙ z   (= f ⊙ c_{t-1} + (1 - f) ⊙ z without zoneout)
//   h_t = o ⊙ c_t (fo-pooling) or c_t (f-pooling)
// The convolution (window 1 or 2) and its bias live in the layer: U = [x_t, x_{t-1}]·W + b.
//
// Layout, time-major:
//   u         (L, B, d·k)  pre-activations interleaved per unit: [z, f, o] (k = 3, fo-pooling)
//                          or [z, f] (k = 2, f-pooling); column j·k + q
//   c0        (B, d)       initial state, or undefined for zeros
//   zoneout   (L, B, d)    multiplies the update weight 1 - f (training: {0,1}; any value is
//                          accepted, e.g. the keep probability at evaluation), or undefined
//   mask_pad  (L, B)       bool/uint8, nonzero = pad step (c carried, h = 0), or undefined
// float32 and float64. No parameters: gradients go to u and c0 only.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/device_dispatch.h"

namespace recurlab::kernels {

struct QrnnPoolingOptions {
  int64_t hidden_size = 0;  // d
  bool output_gate = true;  // fo-pooling (k = 3) or f-pooling (k = 2)

  int64_t numMatrices() const { return output_gate ? 3 : 2; }
};

struct QrnnPoolingForwardResult {
  at::Tensor h;       // (L, B, d)
  at::Tensor c;       // (L, B, d), every state (saved for backward)
  at::Tensor last_c;  // (B, d)
};

struct QrnnPoolingBackwardResult {
  at::Tensor grad_u;   // (L, B, d·k)
  at::Tensor grad_c0;  // (B, d)
};

// Raw kernels, no autograd, on U's device: the fused CPU loops (kernels/cpu/) or their
// CUDA twins (kernels/cuda/, when built). grad_h / grad_last_c may be undefined (zero). Both
// check their arguments, throwing c10::Error that names the op, the tensor, its shape and what
// was expected.
QrnnPoolingForwardResult qrnnPoolingForward(const at::Tensor& u, const at::Tensor& c0,
                                            const at::Tensor& zoneout,
                                            const at::Tensor& mask_pad,
                                            const QrnnPoolingOptions& opt);

QrnnPoolingBackwardResult qrnnPoolingBackward(const at::Tensor& grad_h,
                                              const at::Tensor& grad_last_c, const at::Tensor& u,
                                              const at::Tensor& c0, const at::Tensor& c,
                                              const at::Tensor& zoneout,
                                              const at::Tensor& mask_pad,
                                              const QrnnPoolingOptions& opt);

// Differentiable fused pooling. Returns {h, last_c}; gradients flow to u and c0.
std::vector<at::Tensor> qrnnPooling(const at::Tensor& u, const at::Tensor& c0,
                                    const at::Tensor& zoneout, const at::Tensor& mask_pad,
                                    const QrnnPoolingOptions& opt);

namespace detail {

// One call's inputs as the op hands them to its implementations (kernels/cpu/, kernels/cuda/):
// checked, contiguous, on U's device; optional ones undefined; mask_pad bool or uint8.
struct QrnnPoolingTensors {
  at::Tensor u, c0, zoneout, mask_pad;
};

// The implementations the op dispatches to: the fused CPU loops (kernels/cpu/qrnn_pooling.cpp) and
// their CUDA twins (kernels/cuda/qrnn_pooling.cpp, defined only in a build with the CUDA
// kernels, RECURLAB_WITH_CUDA). No autograd. They trust their tensors, which the op has checked
// (kernels/input_checks.h): dtypes the device's kernel takes, every tensor on U's device, shapes
// as the options say.
QrnnPoolingForwardResult qrnnPoolingCpuForward(const QrnnPoolingTensors& in,
                                               const QrnnPoolingOptions& opt);
QrnnPoolingBackwardResult qrnnPoolingCpuBackward(const BackwardTensors& grads,
                                                 const QrnnPoolingTensors& in,
                                                 const QrnnPoolingOptions& opt);
QrnnPoolingForwardResult qrnnPoolingCudaForward(const QrnnPoolingTensors& in,
                                                const QrnnPoolingOptions& opt);
QrnnPoolingBackwardResult qrnnPoolingCudaBackward(const BackwardTensors& grads,
                                                  const QrnnPoolingTensors& in,
                                                  const QrnnPoolingOptions& opt);

}  // namespace detail
}  // namespace recurlab::kernels
