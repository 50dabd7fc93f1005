#pragma once
// What differs between the LibTorch builds recurlab is compiled against, in one place:
// Debian's libtorch-dev 1.13 (CPU, OpenBLAS) and the PyTorch 2.x wheels' LibTorch on GPU
// machines (CUDA, MKL). Code that must behave differently asks here, not the version macros.
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/version.h>

#include <string>

namespace c10 {
struct TensorImpl;
}

namespace recurlab {

// The BLAS the LibTorch was built with, as its build configuration names it: "generic" (the
// system's libblas, OpenBLAS on Debian: Debian's LibTorch), "open", "mkl" (PyTorch's wheels),
// or "" when the configuration does not say.
std::string torchBlasLibrary();

// "major.minor.patch" of the LibTorch compiled against.
std::string torchVersion();

// Whether that LibTorch was built with CUDA (its build configuration's USE_CUDA=ON): Debian's
// is not, PyTorch's CUDA wheels are.
bool torchBuiltWithCuda();

// Autocast's state for one device type (kCPU or kCUDA). LibTorch 1.13 has a function per device
// (is_enabled for CUDA, is_cpu_enabled, ...); 2.x takes the device type and deprecates the
// others, with a warning printed at every call.
bool autocastEnabled(c10::DeviceType device);
void setAutocastEnabled(c10::DeviceType device, bool enabled);
c10::ScalarType autocastDtype(c10::DeviceType device);
void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype);

// TF32 tensor-core arithmetic for float32 matmuls, convolutions and RNNs on CUDA, allowed (or
// not) for the scope and restored after. LibTorch 1.13 has a flag per library (cuBLAS, cuDNN);
// 2.x a precision per backend and op, and deprecates the flags.
class CudaTf32Scope {
 public:
  explicit CudaTf32Scope(bool allowed);
  ~CudaTf32Scope();
  CudaTf32Scope(const CudaTf32Scope&) = delete;
  CudaTf32Scope& operator=(const CudaTf32Scope&) = delete;

 private:
  int saved_[3];  // the settings replaced, as the LibTorch stores them
};
// Whether CUDA float32 matmuls may use TF32 now.
bool cudaMatmulTf32Allowed();

// The key of a parameter's entry in torch::optim::Optimizer::state_: the TensorImpl's address
// as a string in LibTorch 1.x, the address itself in 2.x.
#if TORCH_VERSION_MAJOR >= 2
using OptimizerStateKey = void*;
#else
using OptimizerStateKey = std::string;
#endif
OptimizerStateKey optimizerStateKey(c10::TensorImpl* parameter);

}  // namespace recurlab
