#pragma once
// Element-by-element rounding-error bounds, for tests that compare a kernel computed in float,
// half or bfloat16 with an exact reference computed in double. Every element must satisfy
//   |computed - exact| <= sum over error sources of gamma_n · magnitude,
// where gamma_n bounds the relative error of a chain of n roundings of unit roundoff u,
//   gamma_n = n·u / (1 - n·u)   (Higham, Accuracy and Stability of Numerical Algorithms, 2002,
//   Lemma 3.1),
// and the magnitude bounds the absolute values that flowed into the element: for a sum of terms
// summed in any order it is sum_i |term_i| with n the depth of the summation (Higham 2002,
// §4.2); for a recurrence, the values the state held, with n growing with the length (each
// step adds its roundings to the state). The caller chooses the sources; this file does the
// arithmetic and the element-by-element check.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace recurlab::testing {

// 2^-53 double, 2^-24 float, 2^-11 half, 2^-8 bfloat16 (round to nearest).
double unitRoundoff(torch::Dtype dtype);

// gamma_n for unit roundoff u; infinity when n·u >= 1 (the bound says nothing).
double gammaBound(int64_t n, double u);

// A chain of rounded operations: `roundings` in the arithmetic's precision, plus
// `stored_roundings` to a narrower storage type (half or bfloat16 values written and read
// back). Relative error bound:
//   (1 + gamma(roundings, u_arithmetic)) · (1 + gamma(stored_roundings, u_storage)) - 1.
struct RoundingModel {
  torch::Dtype arithmetic = torch::kFloat;
  int64_t roundings = 0;
  torch::Dtype storage = torch::kFloat;
  int64_t stored_roundings = 0;

  double relativeBound() const;
  // Absolute error from underflow: half the smallest subnormal per rounding (Higham 2002, §2.1).
  double underflowBound() const;
  std::string describe() const;
};

// One source of error: a chain of roundings and the magnitude of the values it rounded
// (broadcast to the checked tensor's shape).
struct ErrorSource {
  RoundingModel model;
  torch::Tensor magnitude;
};

// Where the worst element of a check lies and how far it is from its bound.
struct RoundingCheck {
  bool ok = true;
  int64_t outside = 0;  // elements over their bound (or NaN)
  int64_t worst = -1;   // flat index of the element with the largest |diff| / bound
  std::vector<int64_t> worst_index;
  double got = 0.0, reference = 0.0, bound = 0.0;
  double worst_ratio = 0.0;  // |diff| / bound there (> 1: outside)
  std::string message;       // names the tensor, the element, its value, reference and bound
};

// Checks |got - reference| <= bound elementwise, with, summed over the sources,
//   bound = model.relativeBound() · magnitude    (the kernel's rounding)
//         + gamma(n, 2^-53) · magnitude          (the double reference's own, n = all roundings)
//         + model.underflowBound().
// got may have any dtype and device; it is compared in double on the CPU. Equal values
// (infinities included) pass; NaN in got fails.
RoundingCheck checkRoundingBound(const torch::Tensor& got, const torch::Tensor& reference,
                                 const std::vector<ErrorSource>& sources,
                                 const std::string& what);

::testing::AssertionResult withinRoundingBound(const torch::Tensor& got,
                                               const torch::Tensor& reference,
                                               const std::vector<ErrorSource>& sources,
                                               const std::string& what);

// Each tensor of `got` (a run's outputs, or its input gradients) within `copies` times the bound
// of `model` on the magnitude of the same index, from the exact tensor of the same index, named
// `label` + " " + names[i] in a failure; tensors undefined in `exact` are skipped. copies = 2
// compares two results that are each within the bound of the exact one.
void expectEachWithinRoundingBound(const std::vector<torch::Tensor>& got,
                                   const std::vector<torch::Tensor>& exact,
                                   const std::vector<torch::Tensor>& magnitude,
                                   const RoundingModel& model,
                                   const std::vector<std::string>& names,
                                   const std::string& label, int copies = 1);

// The largest |value| of several tensors (undefined ones skipped, non-finite values count as 0),
// as a 0-dim double tensor: the magnitude for an element of a recurrence's output, given the
// exact tensor and what it was computed from (the inputs for forward outputs, the output
// gradients for gradients). The element's error is that of the values it was computed from
// (the carried state, the inputs), not of its own value, which cancellation may bring near zero
// (c - u where c ≈ u); in the tests the columns are alike (inputs drawn from one
// distribution), so the largest value bounds them.
torch::Tensor largestMagnitude(const std::vector<torch::Tensor>& tensors);

}  // namespace recurlab::testing
