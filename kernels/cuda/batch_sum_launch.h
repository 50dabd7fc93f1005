#pragma once
// The deterministic second pass of every backward: per-column parameter gradients
// (rows, batch, width) summed over the batch, in batch order, into (rows, width). One thread
// per output element, no atomics, so the result does not depend on scheduling.
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

// src and dst hold accumulators: double when `doubles`, else float.
void launchSumOverBatch(const void* src, void* dst, int64_t rows, int64_t batch, int64_t width,
                        bool doubles, Stream stream);

inline int64_t sumOverBatchBytes(int64_t rows, int64_t batch, int64_t width, bool doubles) {
  return (rows * batch * width + rows * width) * (doubles ? 8 : 4);
}

}  // namespace recurlab::kernels::cuda
