#pragma once
// The CPU implementation of the SRU recurrence (kernels/sru_recurrence.h: layouts, options, the
// differentiable op): fused loops over time, at::parallel_for over columns.
#include <ATen/core/Tensor.h>

#include <vector>

#include "kernels/sru_recurrence.h"

namespace recurlab::kernels {

// Raw CPU kernels, no autograd (callers use the device-dispatching ones of
// kernels/sru_recurrence.h).
SruForwardResult sruRecurrenceCpuForward(const at::Tensor& u, const at::Tensor& x,
                                      const at::Tensor& weight_c, const at::Tensor& bias,
                                      const at::Tensor& c0, const at::Tensor& mask_c,
                                      const at::Tensor& mask_pad,
                                      const SruRecurrenceOptions& opt);

SruBackwardResult sruRecurrenceCpuBackward(const at::Tensor& grad_h, const at::Tensor& grad_last_c,
                                        const at::Tensor& u, const at::Tensor& x,
                                        const at::Tensor& weight_c, const at::Tensor& bias,
                                        const at::Tensor& c0, const at::Tensor& c,
                                        const at::Tensor& mask_c, const at::Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt);

// Naive reference: a loop over time with plain tensor ops and autograd. Slow; for tests.
std::vector<at::Tensor> sruRecurrenceReference(const at::Tensor& u, const at::Tensor& x,
                                               const at::Tensor& weight_c,
                                               const at::Tensor& bias, const at::Tensor& c0,
                                               const at::Tensor& mask_c,
                                               const at::Tensor& mask_pad,
                                               const SruRecurrenceOptions& opt);

}  // namespace recurlab::kernels
