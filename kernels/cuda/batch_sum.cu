#include "kernels/cuda/batch_sum_launch.h"

#include "kernels/cuda/device_math.cuh"

namespace recurlab::kernels::cuda {
namespace {

// Consecutive threads read consecutive units of one (row, batch) slice: coalesced.
template <typename A>
__global__ void sumOverBatchKernel(const A* __restrict__ src, A* __restrict__ dst, int64_t rows,
                                   int64_t batch, int64_t width) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= rows * width) return;
  const int64_t row = i / width, unit = i - row * width;
  const A* p = src + row * batch * width + unit;
  A sum = 0;
  for (int64_t b = 0; b < batch; ++b) sum += p[b * width];
  dst[i] = sum;
}

}  // namespace

void launchSumOverBatch(const void* src, void* dst, int64_t rows, int64_t batch, int64_t width,
                        bool doubles, Stream stream) {
  const int64_t n = rows * width;
  if (n == 0) return;
  constexpr int kThreads = 256;
  if (doubles) {
    RECURLAB_LAUNCH(blocksFor(n, kThreads), kThreads, stream, sumOverBatchKernel<double>)(
        static_cast<const double*>(src), static_cast<double*>(dst), rows, batch, width);
  } else {
    RECURLAB_LAUNCH(blocksFor(n, kThreads), kThreads, stream, sumOverBatchKernel<float>)(
        static_cast<const float*>(src), static_cast<float*>(dst), rows, batch, width);
  }
  throwIfLaunchFailed("the batch sum of parameter gradients");
}

}  // namespace recurlab::kernels::cuda
