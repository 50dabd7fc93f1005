#pragma once
// The log-space form of minGRU and minLSTM (Feng et al. 2024, "Were RNNs All We Needed?",
// appendix): candidates pass through g(x) = x + 1/2 for x >= 0, σ(x) below, which keeps every
// value of the recurrence positive, and the coefficients are built as exponentials of
// log-sigmoids. The paper runs the scan itself in log space (a cumulative sum and a
// log-cumulative-sum-exp) so that its parallel prefix never forms a product of many gates;
// kernels/linear_recurrence.h never forms one across more than a chunk and never divides by
// one, so the layers hand it a_t and b_t in linear space and the model is the same.
#include <ATen/core/Tensor.h>

namespace recurlab::models {

// g(x) = x + 1/2 (x >= 0), σ(x) (x < 0): continuous, positive, increasing.
at::Tensor positiveCandidate(const at::Tensor& x);
// log g(x), stable for large |x|.
at::Tensor logPositiveCandidate(const at::Tensor& x);

}  // namespace recurlab::models
