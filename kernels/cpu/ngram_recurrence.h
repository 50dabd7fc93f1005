#pragma once
// The CPU implementation of the n-gram recurrence (kernels/ngram_recurrence.h: layouts, options,
// the differentiable op): fused loops over time, at::parallel_for over columns.
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/ngram_recurrence.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor, its shape and what was expected.
void checkNgramRecurrenceInputs(const at::Tensor& u, const at::Tensor& c0,
                                const at::Tensor& mask_pad, const NgramRecurrenceOptions& opt);

// Raw CPU kernels, no autograd (callers use the device-dispatching ones of
// kernels/ngram_recurrence.h).
NgramForwardResult ngramRecurrenceCpuForward(const at::Tensor& u, const at::Tensor& c0,
                                          const at::Tensor& mask_pad,
                                          const NgramRecurrenceOptions& opt);

NgramBackwardResult ngramRecurrenceCpuBackward(const at::Tensor& grad_h,
                                            const at::Tensor& grad_last_c, const at::Tensor& u,
                                            const at::Tensor& c0, const at::Tensor& c,
                                            const at::Tensor& mask_pad,
                                            const NgramRecurrenceOptions& opt);

// Naive reference: a loop over time with plain tensor ops and autograd. For tests.
std::vector<at::Tensor> ngramRecurrenceReference(const at::Tensor& u, const at::Tensor& c0,
                                                 const at::Tensor& mask_pad,
                                                 const NgramRecurrenceOptions& opt);

}  // namespace recurlab::kernels
