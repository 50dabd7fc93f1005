#pragma once
// What differs between the LibTorch builds recurlab is compiled against, in one place:
// Debian's libtorch-dev 1.13 (CPU, OpenBLAS) and the PyTorch 2.x wheels' LibTorch on GPU
// machines (CUDA, MKL). Code that must behave differently asks here, not the version macros.
#include <string>

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

}  // namespace recurlab
