#pragma once
// Gated linear attention's test inputs and its float rounding bound, shared by the CPU tests
// (tests/kernels/gated_linear_attention_test.cpp) and the CUDA ones (tests/kernels/cuda/).
//
// The float bound (tests/support/rounding_bound.h). Every output and gradient is a sum of terms,
// each a product of entries of q, k, v (or s0, or the upstream gradients) and a decay factor
// e^{Σ g} over a range of steps; |float - exact| <= γ_n · M, M the same output or gradient of
// the reference run in double on |q|, |k|, |v|, |s0|, the same gates and |upstream gradients|
// (the sum of the terms' absolute values; the gates are positive; for the gradient of log α,
// also the terms that the chunked backward cancels: logAlphaGradientMagnitude). Each term's roundings, in
// units of u:
//   - its decay factor. Step by step: one exp and one multiply per step, <= 2·L. Chunked: the
//     exponent is a difference of two cumulative sums of <= C terms of one sign (g <= 0), each
//     within γ_C·Λ of exact, Λ the largest |Σ g| over the sequence, so e^{exponent} is within a
//     relative (2·C + 1)·Λ·u (+ the exp's and the subtraction's roundings); across chunks the
//     chunk decays e^{G_C} multiply, their exponents' errors summing to <= C·Λ·u: in all
//     <= (3·C + 2)·⌈Λ⌉ + 3·L + 3;
//   - the products of its factors and the scalings by decay factors: <= 6;
//   - its sums: over d_k (the scores, q·S), over a chunk's <= C + 15 steps (scores · V and
//     K^T V, chunks padded to the secondary chunks' 16) and over the chunks' carries: <= d_k +
//     2·L + 16; the gradients of q, k and log α sum over d_v instead of d_k, so max(d_k, d_v).
// So n = (3·C + 2)·⌈Λ⌉ + 5·L + max(d_k, d_v) + 25 for the outputs, with C = L for the
// step-by-step form (its 2·L is below that). A gradient runs the same products and sums
// transposed (through autograd, or the fused CPU kernel's backward for the step-by-step form),
// and multiplies by the upstream gradient: 2·n + 1.
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gated_linear_attention.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace recurlab::testing::gla {

struct Case {
  int64_t L, B, H, dk, dv;
  bool s0, pad;

  std::string name() const {
    return "L=" + std::to_string(L) + " B=" + std::to_string(B) + " H=" + std::to_string(H) +
           " dk=" + std::to_string(dk) + " dv=" + std::to_string(dv) + (s0 ? " s0" : "") +
           (pad ? " pad" : "");
  }
};

// Inputs [q, k, v, log_alpha, s0, mask_pad] and output gradients [do, dlast_state] in double,
// holding float values (float and double runs see the same numbers). log α = log σ(x), x with
// mean 1 and deviation 2: most gates near 1, some below 0.01.
struct Data {
  std::vector<torch::Tensor> inputs, grad_outputs;
};

Data makeData(const Case& c, uint64_t seed);

// q, k, v, log α and s0 are differentiable; mask_pad is not.
extern const std::vector<bool> kDifferentiable;

// The op on `device` in `dtype` (inputs and upstream gradients rounded to it).
KernelRun runOp(const Data& data, torch::Device device, torch::Dtype dtype,
                const kernels::GatedLinearAttentionOptions& options);

// The naive step-by-step reference in double on the CPU.
KernelRun runReference(const Data& data);

// M for every output and gradient: the reference on absolute values (the gates unchanged); for
// the gradient of log α at least the sum of the terms the chunked forms cancel
// (logAlphaGradientMagnitude in the .cpp).
KernelRun runMagnitudes(const Data& data);

// The bound's n (the header): Λ the largest cumulative log decay of any row and head.
int64_t outputRoundings(const Case& c, const Data& data, int64_t chunk_length);

// Every output and gradient of `got` within `results`·γ·M of `exact` (2 for two results each
// within the bound of the exact one).
void expectWithinBounds(const KernelRun& got, const KernelRun& exact, const KernelRun& magnitude,
                        int64_t roundings, const std::string& label, int results = 1);

// Every combination of an initial state and a padded batch at one shape.
std::vector<Case> everyOption(int64_t L, int64_t B, int64_t H, int64_t dk, int64_t dv);

}  // namespace recurlab::testing::gla
