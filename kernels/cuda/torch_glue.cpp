#include "kernels/cuda/torch_glue.h"

#include <ATen/Functions.h>
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

void checkCudaU(const char* kernel, const at::Tensor& u, int64_t columns, const char* layout) {
  TORCH_CHECK(u.defined(), kernel, ": U is undefined");
  TORCH_CHECK(u.dim() == 3, kernel, ": U must be (length, batch, columns), got shape ",
              u.sizes());
  TORCH_CHECK(u.is_cuda(), kernel, ": the CUDA kernel got U on ", u.device());
  cudaScalarOf(u, kernel);
  TORCH_CHECK(u.size(2) == columns, kernel, ": U has ", u.size(2), " columns, expected ",
              columns, " (", layout, ")");
}

void checkCudaLike(const char* kernel, const at::Tensor& u, const at::Tensor& t,
                   const char* name, std::vector<int64_t> shape) {
  TORCH_CHECK(t.scalar_type() == u.scalar_type(), kernel, ": ", name, " has dtype ",
              t.scalar_type(), " but U has ", u.scalar_type());
  TORCH_CHECK(t.device() == u.device(), kernel, ": ", name, " is on ", t.device(),
              " but U is on ", u.device());
  TORCH_CHECK(t.sizes() == c10::IntArrayRef(shape), kernel, ": ", name, " has shape ",
              t.sizes(), ", expected ", c10::IntArrayRef(shape));
}

void checkCudaPadMask(const char* kernel, const at::Tensor& u, const at::Tensor& mask_pad) {
  if (!mask_pad.defined()) return;
  TORCH_CHECK(mask_pad.scalar_type() == at::kBool || mask_pad.scalar_type() == at::kByte, kernel,
              ": mask_pad must be bool or uint8 (nonzero = pad), got ", mask_pad.scalar_type());
  TORCH_CHECK(mask_pad.device() == u.device(), kernel, ": mask_pad is on ", mask_pad.device(),
              " but U is on ", u.device());
  TORCH_CHECK(mask_pad.dim() == 2 && mask_pad.size(0) == u.size(0) &&
                  mask_pad.size(1) == u.size(1),
              kernel, ": mask_pad (nonzero = pad) has shape ", mask_pad.sizes(), ", expected [",
              u.size(0), ", ", u.size(1), "] (length, batch)");
}

}  // namespace recurlab::kernels::cuda
