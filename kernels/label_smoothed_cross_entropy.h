#pragma once
// Label-smoothed cross-entropy over a vocabulary in one pass per row (Szegedy et al. 2016,
// §7; fairseq's form: the smoothing mass ε spread over the V - 1 other classes), without the
// (N, V) log-probabilities or a one-hot: forward keeps one log-sum-exp per row, backward writes
// the gradient of the logits directly,
//   ∂loss/∂z_j = g · keep · (softmax(z)_j − ε/(V−1) − (1 − ε − ε/(V−1))·[j = y]).
// Composed from log_softmax, gather and sum it takes about ten passes over an (N, V) tensor
// (N·V = 4096 × 10,000 for an MT batch); this takes three.
//
//   logits (N, V) float or double, CPU; target (N) int64 in [0, V); keep (N) bool (false: a pad
//   row, no loss); epsilon in [0, 1).
// Returns {loss, nll}: loss = Σ_kept (1 − ε − ε/(V−1))·nll_i + ε/(V−1)·Σ_v −log p_i(v), the
// only one with a gradient (to the logits); nll = Σ_kept −log p_i(y_i), detached.
#include <ATen/core/Tensor.h>

#include <utility>

namespace recurlab::kernels {

std::pair<at::Tensor, at::Tensor> labelSmoothedCrossEntropy(const at::Tensor& logits,
                                                            const at::Tensor& target,
                                                            const at::Tensor& keep,
                                                            double epsilon);

}  // namespace recurlab::kernels
