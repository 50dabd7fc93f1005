#pragma once
// What every fused op (kernels/*.h) shares: the choice of implementation by the device of its
// main input, and the way optional tensors cross its one torch::autograd::Function.
#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

#include <initializer_list>

namespace recurlab::kernels::detail {

// True for a CUDA tensor when recurlab is built with its CUDA kernels (RECURLAB_WITH_CUDA);
// false for a CPU tensor. Throws naming `op` for a CUDA tensor in a CPU-only build and for any
// other device.
bool runsOnCuda(const at::Tensor& u, const char* op);

// One tensor argument of an op, by the name its errors use.
struct NamedTensor {
  const char* name;
  const at::Tensor& tensor;
};

// Every defined tensor of `tensors` must be on U's device, else throws naming `op`, the tensor
// and both devices. Checked before the kernel is chosen by U's device: a CUDA mask_pad beside CPU
// inputs would otherwise be read through a device pointer on the host, and a CPU tensor beside
// CUDA ones handed to a kernel as a device pointer.
void checkSameDevice(const char* op, const at::Tensor& u, std::initializer_list<NamedTensor> tensors);

// A gradient handed to a raw backward: undefined (= zero), or of U's dtype and device and the
// shape `shape`; else throws naming `op`, the gradient, its shape and the expected one. The
// kernels index it by that shape, unchecked.
void checkGradient(const char* op, const at::Tensor& u, const at::Tensor& grad, const char* name,
                   c10::IntArrayRef shape);

// LibTorch 1.13's autograd::Function cannot take undefined tensors as inputs (it records a
// device for each): the ops pass an empty (0) tensor instead and map it back.
at::Tensor undefinedAsEmpty(const at::Tensor& t, const at::Tensor& like);
at::Tensor emptyAsUndefined(const at::Tensor& t);

}  // namespace recurlab::kernels::detail
