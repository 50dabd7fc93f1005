#pragma once
// RMSNorm written out for the naive references of the blocks' tests: x / sqrt(mean(x²) + eps)
// ⊙ gain, the gain as the norm stores it (1 + scale or weight: RmsNormImpl::gain).
#include <torch/torch.h>

#include "models/layers/rms_norm.h"

namespace recurlab::testing {

inline torch::Tensor rmsNorm(const models::RmsNormImpl& norm, const torch::Tensor& x,
                             double eps = 1e-6) {
  const torch::Tensor mean_square = (x * x).sum(-1, true) / x.size(-1);
  return x / torch::sqrt(mean_square + eps) * norm.gain();
}

}  // namespace recurlab::testing
