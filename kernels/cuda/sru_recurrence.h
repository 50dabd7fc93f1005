#pragma once
// The SRU recurrence on CUDA tensors: the CUDA implementation of kernels/sru_recurrence.h, with the
// same layouts, options and results, plus float16/bfloat16 inputs (float accumulation). Defined
// only when recurlab is built against a CUDA-enabled Torch (RECURLAB_WITH_CUDA). Callers use
// kernels/sru_recurrence.h, which comes here for CUDA tensors.
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/sru_recurrence.h"

namespace recurlab::kernels {

// Raw kernels, no autograd. Every tensor on U's device; checks as the CPU kernel's.
SruForwardResult sruRecurrenceCudaForward(const at::Tensor& u, const at::Tensor& x,
                                          const at::Tensor& weight_c, const at::Tensor& bias,
                                          const at::Tensor& c0, const at::Tensor& mask_c,
                                          const at::Tensor& mask_pad,
                                          const SruRecurrenceOptions& opt);

SruBackwardResult sruRecurrenceCudaBackward(const at::Tensor& grad_h,
                                            const at::Tensor& grad_last_c, const at::Tensor& u,
                                            const at::Tensor& x, const at::Tensor& weight_c,
                                            const at::Tensor& bias, const at::Tensor& c0,
                                            const at::Tensor& c, const at::Tensor& mask_c,
                                            const at::Tensor& mask_pad,
                                            const SruRecurrenceOptions& opt);

}  // namespace recurlab::kernels
