#pragma once
// The CPU implementation of the rational recurrence (kernels/rational_recurrence.h: layouts,
// options, the differentiable op): fused loops over time, at::parallel_for over columns.
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/rational_recurrence.h"

namespace recurlab::kernels {

// Throws c10::Error naming the offending tensor, its shape and what was expected.
void checkRationalRecurrenceInputs(const at::Tensor& u, const at::Tensor& weight,
                                   const at::Tensor& c0, const at::Tensor& mask_pad,
                                   const RationalRecurrenceOptions& opt);

// Raw CPU kernels, no autograd (callers use the device-dispatching ones of
// kernels/rational_recurrence.h).
RationalForwardResult rationalRecurrenceCpuForward(const at::Tensor& u, const at::Tensor& weight,
                                                const at::Tensor& c0, const at::Tensor& mask_pad,
                                                const RationalRecurrenceOptions& opt);

RationalBackwardResult rationalRecurrenceCpuBackward(const at::Tensor& grad_h,
                                                  const at::Tensor& grad_last_c,
                                                  const at::Tensor& u, const at::Tensor& weight,
                                                  const at::Tensor& c0, const at::Tensor& c,
                                                  const at::Tensor& mask_pad,
                                                  const RationalRecurrenceOptions& opt);

// Naive reference: a loop over time with plain tensor ops and autograd. For tests.
std::vector<at::Tensor> rationalRecurrenceReference(const at::Tensor& u, const at::Tensor& weight,
                                                    const at::Tensor& c0,
                                                    const at::Tensor& mask_pad,
                                                    const RationalRecurrenceOptions& opt);

}  // namespace recurlab::kernels
