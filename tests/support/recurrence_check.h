#pragma once
// Test helpers for fused recurrences: compare a fused op with its naive reference (forward
// values and every input gradient), and check gradients against central finite differences.
#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
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

// Each tensor of `got` equal to the tensor of the same index of `wider` rounded to `dtype` and
// back (both undefined passes): an op given `dtype` inputs that computes in a wider type.
void expectEqualRoundedThrough(const std::vector<torch::Tensor>& got,
                               const std::vector<torch::Tensor>& wider, torch::Dtype dtype,
                               const std::string& label);

// A named tensor: an output or a leaf in expectSameOutputsAndGradients.
using Named = std::pair<std::string, torch::Tensor>;

// A model's outputs (features, then states) against its reference's, computed from the same
// leaves (input, initial states, parameters): each output within `tol` (max |difference|), then
// the gradients of projectOutputs (one seed for both) with respect to every leaf.
void expectSameOutputsAndGradients(const std::vector<Named>& got,
                                   const std::vector<torch::Tensor>& want,
                                   const std::vector<Named>& leaves, double tol);

}  // namespace recurlab::testing
