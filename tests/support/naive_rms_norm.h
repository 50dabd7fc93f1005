#pragma once
// RMSNorm written out for the naive references of the blocks' tests: x / sqrt(mean(x²) + eps)
// ⊙ gain, the gain 1 + scale or weight, whichever form the norm stores (models/layers/rms_norm.h).
#include <torch/torch.h>

#include "models/layers/rms_norm.h"

namespace recurlab::testing {

inline torch::Tensor rmsNorm(const models::RmsNormImpl& norm, const torch::Tensor& x,
                             double eps = 1e-6) {
  const torch::Tensor mean_square = (x * x).sum(-1, true) / x.size(-1);
  const torch::Tensor gain = norm.weight.defined() ? norm.weight : 1 + norm.scale;
  return x / torch::sqrt(mean_square + eps) * gain;
}

}  // namespace recurlab::testing
