#pragma once
// What every fused op (kernels/*.h) shares: the choice of implementation by the device of its
// main input, and the way optional tensors cross its one torch::autograd::Function.
#include <ATen/core/Tensor.h>

namespace recurlab::kernels::detail {

// True for a CUDA tensor when recurlab is built with its CUDA kernels (RECURLAB_WITH_CUDA);
// false for a CPU tensor. Throws naming `op` for a CUDA tensor in a CPU-only build and for any
// other device.
bool runsOnCuda(const at::Tensor& u, const char* op);

// LibTorch 1.13's autograd::Function cannot take undefined tensors as inputs (it records a
// device for each): the ops pass an empty (0) tensor instead and map it back.
at::Tensor undefinedAsEmpty(const at::Tensor& t, const at::Tensor& like);
at::Tensor emptyAsUndefined(const at::Tensor& t);

}  // namespace recurlab::kernels::detail
