#pragma once
// Shared plumbing of the fused CPU recurrences (QRNN pooling, rational, n-gram): the split of
// (batch, unit) columns into runs of adjacent units, scalar helpers, and the batch sum of
// per-column parameter gradients (also the SRU's).
#include <ATen/core/Tensor.h>

#include "kernels/cpu/intra_op_parallel.h"
#include "kernels/cpu/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

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

// Per-column parameter gradients (rows, batch, columns), accumulated in double, summed over the
// batch in batch order (no atomics: the same result for any thread count): (rows, columns).
at::Tensor sumOverBatch(const at::Tensor& column_grads);

template <typename T>
inline const T* dataOrNull(const at::Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace recurlab::kernels::detail
