#pragma once
// QRNN fo/f-pooling on CUDA tensors: the CUDA implementation of kernels/qrnn_pooling.h (same
// layouts, options and results) plus float16/bfloat16 inputs with float accumulation. Defined only
// when recurlab is built against a CUDA-enabled Torch (RECURLAB_WITH_CUDA).
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/qrnn_pooling.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor; every tensor on U's CUDA device.
void checkQrnnPoolingCudaInputs(const at::Tensor& u, const at::Tensor& c0,
                                const at::Tensor& zoneout, const at::Tensor& mask_pad,
                                const QrnnPoolingOptions& opt);

// Raw kernels, no autograd.
QrnnPoolingForwardResult qrnnPoolingCudaForward(const at::Tensor& u, const at::Tensor& c0,
                                                const at::Tensor& zoneout,
                                                const at::Tensor& mask_pad,
                                                const QrnnPoolingOptions& opt);

QrnnPoolingBackwardResult qrnnPoolingCudaBackward(const at::Tensor& grad_h,
                                                  const at::Tensor& grad_last_c,
                                                  const at::Tensor& u, const at::Tensor& c0,
                                                  const at::Tensor& c, const at::Tensor& zoneout,
                                                  const at::Tensor& mask_pad,
                                                  const QrnnPoolingOptions& opt);

}  // namespace recurlab::kernels
