#pragma once
// The n-gram RCNN recurrence on CUDA tensors: the CUDA implementation of kernels/ngram_recurrence.h
// (same layouts, options and results) plus float16/bfloat16 inputs with float accumulation. Defined
// only when recurlab is built against a CUDA-enabled Torch (RECURLAB_WITH_CUDA).
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/ngram_recurrence.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor; every tensor on U's CUDA device.
void checkNgramRecurrenceCudaInputs(const at::Tensor& u, const at::Tensor& c0,
                                    const at::Tensor& mask_pad,
                                    const NgramRecurrenceOptions& opt);

// Raw kernels, no autograd.
NgramForwardResult ngramRecurrenceCudaForward(const at::Tensor& u, const at::Tensor& c0,
                                              const at::Tensor& mask_pad,
                                              const NgramRecurrenceOptions& opt);

NgramBackwardResult ngramRecurrenceCudaBackward(const at::Tensor& grad_h,
                                                const at::Tensor& grad_last_c,
                                                const at::Tensor& u, const at::Tensor& c0,
                                                const at::Tensor& c, const at::Tensor& mask_pad,
                                                const NgramRecurrenceOptions& opt);

}  // namespace recurlab::kernels
