#pragma once
// The CPU implementation of the QRNN pooling (kernels/qrnn_pooling.h: layouts, options, the
// differentiable op): fused loops over time, at::parallel_for over columns.
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/qrnn_pooling.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor, its shape and what was expected.
void checkQrnnPoolingInputs(const at::Tensor& u, const at::Tensor& c0, const at::Tensor& zoneout,
                            const at::Tensor& mask_pad, const QrnnPoolingOptions& opt);

// Raw CPU kernels, no autograd (callers use the device-dispatching ones of kernels/qrnn_pooling.h).
QrnnPoolingForwardResult qrnnPoolingCpuForward(const at::Tensor& u, const at::Tensor& c0,
                                            const at::Tensor& zoneout,
                                            const at::Tensor& mask_pad,
                                            const QrnnPoolingOptions& opt);

QrnnPoolingBackwardResult qrnnPoolingCpuBackward(const at::Tensor& grad_h,
                                              const at::Tensor& grad_last_c, const at::Tensor& u,
                                              const at::Tensor& c0, const at::Tensor& c,
                                              const at::Tensor& zoneout,
                                              const at::Tensor& mask_pad,
                                              const QrnnPoolingOptions& opt);

// Naive reference: a loop over time with plain tensor ops and autograd. For tests.
std::vector<at::Tensor> qrnnPoolingReference(const at::Tensor& u, const at::Tensor& c0,
                                             const at::Tensor& zoneout,
                                             const at::Tensor& mask_pad,
                                             const QrnnPoolingOptions& opt);

}  // namespace recurlab::kernels
