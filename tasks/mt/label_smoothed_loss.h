#pragma once
// Label-smoothed cross-entropy exactly as fairseq's label_smoothed_cross_entropy criterion
// (Szegedy et al. 2016 §7): with V the whole vocabulary (specials and the
// pad column included) and eps_i = eps / (V - 1), a token's loss is
//   (1 - eps - eps_i) * (-log p_target) + eps_i * sum_v (-log p_v),
// i.e. the target gets 1 - eps and each other class eps / (V - 1). Rows whose target is pad
// count nothing. Sums in nats (fairseq logs them in base 2: divide by ln 2).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

namespace recurlab::experiments {

struct LabelSmoothedLoss {
  at::Tensor loss;  // scalar: summed smoothed loss over non-pad targets (with its graph)
  at::Tensor nll;   // scalar: summed unsmoothed negative log-likelihood (detached)
  int64_t tokens = 0;  // non-pad targets
};

// logits (..., V), target (...) int64, target_pad (...) bool (true = pad). `tokens`: the
// non-pad target count when the caller knows it on the host (a batch's), which spares a read
// from the device; else counted from target_pad.
LabelSmoothedLoss labelSmoothedCrossEntropy(const at::Tensor& logits, const at::Tensor& target,
                                            const at::Tensor& target_pad, double epsilon,
                                            std::optional<int64_t> tokens = std::nullopt);

}  // namespace recurlab::experiments
