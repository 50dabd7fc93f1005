#include "kernels/cuda/torch_glue.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/util/Exception.h>

namespace recurlab::kernels::cuda {

CudaScalar cudaScalarOf(const at::Tensor& t, const char* kernel) {
  switch (t.scalar_type()) {
    case at::kFloat: return CudaScalar::Float;
    case at::kDouble: return CudaScalar::Double;
    case at::kHalf: return CudaScalar::Half;
    case at::kBFloat16: return CudaScalar::BFloat16;
    default: break;
  }
  TORCH_CHECK(false, kernel, ": the CUDA kernel takes float32, float64, float16 or bfloat16, got ",
              t.scalar_type());
  return CudaScalar::Float;
}

at::ScalarType accumulatorTypeOf(at::ScalarType s) {
  return s == at::kDouble ? at::kDouble : at::kFloat;
}

Stream currentStream() { return at::cuda::getCurrentCUDAStream().stream(); }

const uint8_t* padMaskBytes(const at::Tensor& mask_pad, const at::Tensor& u, const char* kernel,
                            at::Tensor& storage) {
  if (!mask_pad.defined()) return nullptr;
  TORCH_CHECK(mask_pad.device() == u.device(), kernel, ": mask_pad is on ", mask_pad.device(),
              " but U is on ", u.device());
  TORCH_CHECK(mask_pad.scalar_type() == at::kBool || mask_pad.scalar_type() == at::kByte, kernel,
              ": mask_pad must be bool or uint8 (nonzero = pad), got ", mask_pad.scalar_type());
  storage = mask_pad.contiguous();  // bool is one byte holding 0 or 1: read it as uint8
  return static_cast<const uint8_t*>(storage.data_ptr());
}

}  // namespace recurlab::kernels::cuda
