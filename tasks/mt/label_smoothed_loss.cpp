#include "tasks/mt/label_smoothed_loss.h"

#include <torch/torch.h>

#include <stdexcept>

#include "kernels/label_smoothed_cross_entropy.h"

namespace recurlab::experiments {

LabelSmoothedLoss labelSmoothedCrossEntropy(const at::Tensor& logits, const at::Tensor& target,
                                            const at::Tensor& target_pad, double epsilon,
                                            std::optional<int64_t> tokens) {
  if (epsilon < 0 || epsilon >= 1)
    throw std::invalid_argument("label smoothing must be in [0, 1), got " + std::to_string(epsilon));
  const int64_t V = logits.size(-1);
  if (V < 2) throw std::invalid_argument("label smoothing needs at least 2 classes");
  if (logits.device().is_cpu() &&
      (logits.scalar_type() == torch::kFloat || logits.scalar_type() == torch::kDouble)) {
    // One fused pass per row instead of the (N, V) log-probabilities and their gradients.
    const auto keep = target_pad.logical_not().reshape(-1);
    auto [loss, nll] = kernels::labelSmoothedCrossEntropy(logits.reshape({-1, V}),
                                                          target.reshape(-1), keep, epsilon);
    LabelSmoothedLoss out;
    out.loss = loss;
    out.nll = nll;
    out.tokens = keep.sum().item<int64_t>();
    return out;
  }
  const auto lprobs = torch::log_softmax(logits, -1);
  const auto keep = target_pad.logical_not().to(lprobs.scalar_type());
  const auto nll = -lprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1) * keep;
  const auto smooth = -lprobs.sum(-1) * keep;
  const double eps_i = epsilon / static_cast<double>(V - 1);
  LabelSmoothedLoss out;
  out.loss = (1.0 - epsilon - eps_i) * nll.sum() + eps_i * smooth.sum();
  out.nll = nll.sum().detach();
  out.tokens = tokens ? *tokens : target_pad.logical_not().sum().item<int64_t>();
  return out;
}

}  // namespace recurlab::experiments
