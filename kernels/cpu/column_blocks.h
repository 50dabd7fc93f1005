#pragma once
// Shared plumbing of the fused CPU recurrences (QRNN pooling, rational, n-gram): the split of
// (batch, unit) columns into runs of adjacent units, scalar helpers and argument checks with
// messages that name the kernel, the tensor, its shape and what was expected.
#include <ATen/core/Tensor.h>

#include "kernels/cpu/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace recurlab::kernels::detail {

// A run is one batch row and up to kBlock adjacent units: time is walked inside the run, the
// inner loop goes over the units (contiguous memory).
constexpr int64_t kBlock = 64;

struct ColumnRun {
  int64_t b, j0, n;
};

struct ColumnBlocks {
  int64_t B, d;
  int64_t blocks() const { return (d + kBlock - 1) / kBlock; }
  int64_t runs() const { return B * blocks(); }
  ColumnRun at(int64_t run) const {
    const int64_t b = run / blocks();
    const int64_t j0 = (run % blocks()) * kBlock;
    return {b, j0, std::min(kBlock, d - j0)};
  }
};

// Branch-free forms (vector_math.h) so the loops over units vectorize.
template <typename T>
inline T sigmoid(T v) {
  return vsigmoid(v);
}

// log σ(v), stable for large |v|.
template <typename T>
inline T logSigmoid(T v) {
  return vlogSigmoid(v);
}

// U must be (L, B, columns) float32/float64 on the CPU.
void checkTimeMajorU(const char* kernel, const at::Tensor& u, int64_t columns,
                     const char* layout);
// t must have u's dtype and device and the given shape.
void checkLike(const char* kernel, const at::Tensor& u, const at::Tensor& t, const char* name,
               std::vector<int64_t> shape);
// mask_pad, when defined, must be bool or uint8 of shape (L, B).
void checkPadMask(const char* kernel, const at::Tensor& mask_pad, int64_t L, int64_t B);

at::Tensor contiguousOrUndefined(const at::Tensor& t);
at::Tensor padAsBytes(const at::Tensor& mask_pad);  // uint8 contiguous, or undefined

template <typename T>
inline const T* dataOrNull(const at::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace recurlab::kernels::detail
