#pragma once
// The outputs of the fused recurrences, allocated one way by their CPU and CUDA
// implementations: a forward's h (L, B, h_size), every state c (L, B, state_size) and last_c
// (B, state_size); a backward's grad_u (U's shape) and grad_c0 (B, state_size). Uninitialized:
// the kernels write every element (or zero the tensor first).
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include <cstdint>

namespace recurlab::kernels::detail {

// How the large outputs (h, c, grad_u) are allocated: plainEmpty, or the CPU's recycledEmpty.
using Allocate = at::Tensor (*)(at::IntArrayRef sizes, const at::TensorOptions& options);

inline at::Tensor plainEmpty(at::IntArrayRef sizes, const at::TensorOptions& options) {
  return at::empty(sizes, options);
}

template <typename ForwardResult>
ForwardResult emptyForwardResult(const at::Tensor& u, int64_t h_size, int64_t state_size,
                                 Allocate allocate = plainEmpty) {
  const int64_t L = u.size(0), B = u.size(1);
  ForwardResult res;
  res.h = allocate({L, B, h_size}, u.options());
  res.c = allocate({L, B, state_size}, u.options());
  res.last_c = at::empty({B, state_size}, u.options());
  return res;
}

template <typename BackwardResult>
BackwardResult emptyBackwardResult(const at::Tensor& u, int64_t state_size,
                                   Allocate allocate = plainEmpty) {
  BackwardResult res;
  res.grad_u = allocate(u.sizes(), u.options());
  res.grad_c0 = at::empty({u.size(1), state_size}, u.options());
  return res;
}

}  // namespace recurlab::kernels::detail
