#pragma once
// What the CUDA launchers need to know about element types, without any CUDA or Torch header:
// launchers take untyped pointers plus one of these tags, so both nvcc (which cannot include
// ATen here) and the Torch glue can include the launcher headers.
#include <cstdint>

struct CUstream_st;  // cudaStream_t is CUstream_st*; declared here so no CUDA header is needed

namespace recurlab::kernels::cuda {

using Stream = CUstream_st*;

enum class CudaScalar : int { Float, Double, Half, BFloat16 };

inline int64_t bytesOf(CudaScalar s) {
  switch (s) {
    case CudaScalar::Double: return 8;
    case CudaScalar::Half:
    case CudaScalar::BFloat16: return 2;
    case CudaScalar::Float: break;
  }
  return 4;
}

// Accumulators: float for float/half/bfloat16, double for double.
inline int64_t accumulatorBytesOf(CudaScalar s) { return s == CudaScalar::Double ? 8 : 4; }

}  // namespace recurlab::kernels::cuda
