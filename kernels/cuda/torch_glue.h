#pragma once
// Helpers shared by the Torch glue of the CUDA kernels (built only with a CUDA-enabled Torch):
// element-type tags, optional pointers, the current stream.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

// The launcher tag of t's dtype; throws naming `kernel` if the dtype has no CUDA kernel.
CudaScalar cudaScalarOf(const at::Tensor& t, const char* kernel);

// float for float/half/bfloat16, double for double: the type of parameter-gradient buffers.
at::ScalarType accumulatorTypeOf(at::ScalarType s);

// The current CUDA stream of the current device (set a device guard first).
Stream currentStream();

inline const void* dataOrNull(const at::Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// A contiguous copy if needed, or an undefined tensor for an undefined one.
inline at::Tensor contiguousOrUndefined(const at::Tensor& t) {
  return t.defined() ? t.contiguous() : t;
}

// mask_pad (bool or uint8, nonzero = pad) as bytes on u's device, or nullptr when undefined.
// Throws naming `kernel` when the mask is on another device. `storage` keeps the bytes alive.
const uint8_t* padMaskBytes(const at::Tensor& mask_pad, const at::Tensor& u, const char* kernel,
                            at::Tensor& storage);

// Argument checks of the CUDA entry points (the CPU checks accept float32/float64 only); each
// throws c10::Error naming the kernel, the tensor, its shape and what was expected.
// U must be a (length, batch, columns) CUDA tensor of a supported dtype.
void checkCudaU(const char* kernel, const at::Tensor& u, int64_t columns, const char* layout);
// t must have u's dtype and device and the given shape.
void checkCudaLike(const char* kernel, const at::Tensor& u, const at::Tensor& t,
                   const char* name, std::vector<int64_t> shape);
// mask_pad, when defined: bool or uint8, (L, B), on u's device.
void checkCudaPadMask(const char* kernel, const at::Tensor& u, const at::Tensor& mask_pad);

}  // namespace recurlab::kernels::cuda
