#pragma once
// Error bounds derived from floating-point rounding, for tests that compare a computation in
// float (or half) with the same computation in double on the same values. A result built from
// terms by at most n roundings each satisfies, per element (Higham, "Accuracy and Stability of
// Numerical Algorithms", 2nd ed. 2002, §3.1, Lemma 3.1):
//   |computed - exact| <= γ_n · M,   γ_n = n·u / (1 - n·u),
// u the unit roundoff of the dtype computed in and M the sum of the absolute values of the
// terms, which is the same computation run on the absolute values of its inputs.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace recurlab::testing {

// 2^-24 for float, 2^-53 for double, 2^-11 for half, 2^-8 for bfloat16.
double unitRoundoff(at::ScalarType type);

// γ_n for `type` (fails the calling test, and returns infinity, when n·u >= 1).
double roundingGrowth(int64_t roundings, at::ScalarType type);

// |got - want| <= growth · magnitude element by element (all CPU double or convertible); the
// message names the worst element, its error, its bound and their ratio.
::testing::AssertionResult withinRoundingBound(const at::Tensor& got, const at::Tensor& want,
                                               const at::Tensor& magnitude, double growth,
                                               const std::string& what);

}  // namespace recurlab::testing
