#pragma once
// Test helpers for fused recurrences: compare a fused op with its naive reference (forward
// values and every input gradient), and check gradients against central finite differences.
#include <torch/torch.h>

#include <functional>
#include <vector>

namespace recurlab::testing {

// Takes the inputs (some may be undefined) and returns the op's outputs. Inputs passed with
// requires_grad() are the differentiable ones; the others (masks) are constants.
using RecurrenceOp = std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>;

// A fixed random linear functional of the outputs, so every output element gets a distinct
// upstream gradient. Deterministic given `seed`.
torch::Tensor projectOutputs(const std::vector<torch::Tensor>& outputs, uint64_t seed);

// Asserts that outputs and the gradients of projectOutputs() w.r.t. every defined input agree
// within `tol` (max abs difference).
void expectSameForwardBackward(const RecurrenceOp& fused, const RecurrenceOp& reference,
                               const std::vector<torch::Tensor>& inputs, double tol);

// Compares the op's autograd gradients with central differences (step `eps`) on `probes`
// coordinates of every defined input that requires a gradient (checkGradients of
// tests/support/gradient_check.h, |numeric - analytic| <= tol·(1 + |numeric|)).
void expectGradientsMatchFiniteDifferences(const RecurrenceOp& op,
                                           const std::vector<torch::Tensor>& inputs,
                                           int probes, double eps, double tol);

}  // namespace recurlab::testing
