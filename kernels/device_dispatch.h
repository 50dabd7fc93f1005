#pragma once
// What every fused op (kernels/*.cpp) shares besides its checks (kernels/input_checks.h): the
// choice of implementation by U's device, the tensors it hands that implementation, and the
// way optional tensors cross its one torch::autograd::Function.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace recurlab::kernels::detail {

// Returns cpu() for a CPU tensor U and cuda() for a CUDA one. The op has checked U's device
// (checkU), so no other device comes here. cuda() is compiled in every build, which keeps the
// CUDA implementations' declarations (kernels/cuda/*.h) in step with their callers, but it is
// called, and so needs their definitions, only in a build with the CUDA kernels
// (RECURLAB_WITH_CUDA).
template <typename CpuFn, typename CudaFn>
decltype(auto) dispatchByDevice([[maybe_unused]] const at::Tensor& u, CpuFn&& cpu,
                                [[maybe_unused]] CudaFn&& cuda) {
#ifdef RECURLAB_WITH_CUDA
  if (u.is_cuda()) return cuda();
#endif
  return cpu();
}

// A contiguous tensor (a copy if needed); undefined stays undefined.
at::Tensor contiguousOrUndefined(const at::Tensor& t);

// The bytes of a contiguous mask_pad (bool or uint8, nonzero = pad: a bool is one byte holding
// 0 or 1), or nullptr when it is undefined.
const uint8_t* padBytes(const at::Tensor& mask_pad);

// What a raw backward adds to the forward's tensors, contiguous: the upstream gradients
// (undefined = zero) and every state saved by the forward.
struct BackwardTensors {
  at::Tensor grad_h, grad_last_c, c;
};
BackwardTensors contiguousBackward(const at::Tensor& grad_h, const at::Tensor& grad_last_c,
                                   const at::Tensor& c);

// LibTorch 1.13's autograd::Function cannot take undefined tensors as inputs (it records a
// device for each): the ops pass an empty (0) tensor instead and map it back.
at::Tensor undefinedAsEmpty(const at::Tensor& t, const at::Tensor& like);
at::Tensor emptyAsUndefined(const at::Tensor& t);

}  // namespace recurlab::kernels::detail
