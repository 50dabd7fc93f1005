#include "kernels/cuda/torch_glue.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/util/Exception.h>

namespace recurlab::kernels::cuda {

CudaScalar cudaScalarOf(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return CudaScalar::Float;
    case at::kDouble: return CudaScalar::Double;
    case at::kHalf: return CudaScalar::Half;
    case at::kBFloat16: return CudaScalar::BFloat16;
    default: break;
  }
  TORCH_CHECK(false, "recurlab's CUDA kernels take float32, float64, float16 or bfloat16, got ",
              t.scalar_type());
  return CudaScalar::Float;
}

at::ScalarType accumulatorTypeOf(at::ScalarType s) {
  return s == at::kDouble ? at::kDouble : at::kFloat;
}

at::Tensor emptyAccumulators(at::IntArrayRef sizes, const at::Tensor& like) {
  return at::empty(sizes, like.options().dtype(accumulatorTypeOf(like.scalar_type())));
}

Stream currentStream() { return at::cuda::getCurrentCUDAStream().stream(); }

}  // namespace recurlab::kernels::cuda
