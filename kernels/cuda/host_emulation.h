#pragma once
// Host emulation of the CUDA kernels, for testing their logic where there is no GPU (CI): the
// .cu files compiled by the host C++ compiler with RECURLAB_CUDA_EMULATION defined (see
// kernels/cuda/CMakeLists.txt). CUDA's headers make __global__/__device__ empty for a host
// compiler; blockIdx, threadIdx and blockDim become thread-local variables, and a launch runs
// every thread of every block one after the other. Arithmetic is the host's (no fused
// multiply-add, libm's exp/tanh), so results agree with the GPU to rounding, not bit for bit.
// Not for production use: sequential and slow.
#include <vector_types.h>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

// Small blocks, so that small test problems still span several blocks.
constexpr int kEmulatedThreadsPerBlock = 32;

}  // namespace recurlab::kernels::cuda

inline thread_local uint3 blockIdx;
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockDim;

namespace recurlab::kernels::cuda {

// RECURLAB_LAUNCH(blocks, threads, stream, kernel)(args...) in the emulation build: returns
// the callable that runs the whole grid. The stream is ignored (everything is synchronous).
template <typename... Params>
auto emulatedLaunch(unsigned blocks, int threads, Stream, void (*kernel)(Params...)) {
  return [=](auto&&... args) {
    blockDim = uint3{static_cast<unsigned>(threads), 1, 1};
    for (unsigned b = 0; b < blocks; ++b) {
      for (int t = 0; t < threads; ++t) {
        blockIdx = uint3{b, 0, 0};
        threadIdx = uint3{static_cast<unsigned>(t), 0, 0};
        kernel(args...);
      }
    }
  };
}

}  // namespace recurlab::kernels::cuda
