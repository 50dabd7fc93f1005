#pragma once
// The rational recurrences (patterns B, C, F; plus-times and max-plus) on CUDA tensors: the
// CUDA implementation of kernels/rational_recurrence.h (same layouts, options and results) plus
// float16/bfloat16 inputs with float accumulation. Defined only when recurlab is built against
// a CUDA-enabled Torch (RECURLAB_WITH_CUDA).
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/rational_recurrence.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor; every tensor on U's CUDA device.
void checkRationalRecurrenceCudaInputs(const at::Tensor& u, const at::Tensor& weight,
                                       const at::Tensor& c0, const at::Tensor& mask_pad,
                                       const RationalRecurrenceOptions& opt);

// Raw kernels, no autograd.
RationalForwardResult rationalRecurrenceCudaForward(const at::Tensor& u,
                                                    const at::Tensor& weight,
                                                    const at::Tensor& c0,
                                                    const at::Tensor& mask_pad,
                                                    const RationalRecurrenceOptions& opt);

RationalBackwardResult rationalRecurrenceCudaBackward(
    const at::Tensor& grad_h, const at::Tensor& grad_last_c, const at::Tensor& u,
    const at::Tensor& weight, const at::Tensor& c0, const at::Tensor& c,
    const at::Tensor& mask_pad, const RationalRecurrenceOptions& opt);

}  // namespace recurlab::kernels
