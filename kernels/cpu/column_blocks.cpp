#include "kernels/cpu/column_blocks.h"

#include <ATen/Functions.h>

namespace recurlab::kernels::detail {

at::Tensor sumOverBatch(const at::Tensor& column_grads) {
  const int64_t rows = column_grads.size(0), B = column_grads.size(1);
  const int64_t cols = column_grads.size(2);
  at::Tensor sums = at::empty({rows, cols}, column_grads.options());
  const double* cg = column_grads.data_ptr<double>();
  double* out = sums.data_ptr<double>();
  at::parallel_for(0, rows * cols, 256, [&](int64_t begin, int64_t end) {
    for (int64_t qj = begin; qj < end; ++qj) {
      const int64_t q = qj / cols, j = qj % cols;
      double s = 0.0;
      for (int64_t b = 0; b < B; ++b) s += cg[(q * B + b) * cols + j];
      out[qj] = s;
    }
  });
  return sums;
}

}  // namespace recurlab::kernels::detail
