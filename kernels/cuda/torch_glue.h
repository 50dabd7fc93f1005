#pragma once
// Helpers shared by the Torch glue of the CUDA kernels (built only with a CUDA-enabled Torch):
// element-type tags, optional pointers, the current stream. The glue gets tensors the ops have
// checked (kernels/input_checks.h).
#include <ATen/core/Tensor.h>

#include "kernels/cuda/cuda_scalar.h"
#include "kernels/device_dispatch.h"

namespace recurlab::kernels::cuda {

// The launcher tag of t's dtype (float32, float64, float16 or bfloat16, as the ops check).
CudaScalar cudaScalarOf(const at::Tensor& t);

// float for float/half/bfloat16, double for double: the type of parameter-gradient buffers.
at::ScalarType accumulatorTypeOf(at::ScalarType s);

// Uninitialized accumulators (accumulatorTypeOf `like`'s dtype) on `like`'s device: the
// kernels' parameter-gradient buffers and workspaces.
at::Tensor emptyAccumulators(at::IntArrayRef sizes, const at::Tensor& like);

// The current CUDA stream of the current device (set a device guard first).
Stream currentStream();

inline const void* dataOrNull(const at::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
inline void* dataOrNull(at::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// The fields every launcher's arguments share (kernels/cuda/*_launch.h), from the op's tensors
// `in` and the outputs `res`.
template <typename Args, typename Tensors, typename ForwardResult>
void setForwardArgs(Args& a, const Tensors& in, ForwardResult& res) {
  a.scalar = cudaScalarOf(in.u);
  a.u = in.u.data_ptr();
  a.c0 = dataOrNull(in.c0);
  a.mask_pad = detail::padBytes(in.mask_pad);
  a.h = res.h.data_ptr();
  a.c = res.c.data_ptr();
  a.last_c = res.last_c.data_ptr();
}

template <typename Args, typename Tensors, typename BackwardResult>
void setBackwardArgs(Args& a, const detail::BackwardTensors& grads, const Tensors& in,
                     BackwardResult& res) {
  a.scalar = cudaScalarOf(in.u);
  a.u = in.u.data_ptr();
  a.c0 = dataOrNull(in.c0);
  a.mask_pad = detail::padBytes(in.mask_pad);
  a.c = grads.c.data_ptr();
  a.grad_h = dataOrNull(grads.grad_h);
  a.grad_last_c = dataOrNull(grads.grad_last_c);
  a.grad_u = res.grad_u.data_ptr();
  a.grad_c0 = res.grad_c0.data_ptr();
}

}  // namespace recurlab::kernels::cuda
