#pragma once
// The key `negative_eigenvalues` of the elementwise linear recurrences (min_gru, min_lstm,
// sru_linear, hgrn, rg_lru): the multiplier a_t in (0, 1) that the model's gate gives becomes
// 2·a_t − 1 in (−1, 1), the extension Grazzi et al. (2025, "Unlocking State-Tracking in Linear
// RNNs Through Negative Eigenvalues") make to Mamba's and DeltaNet's state transitions. A
// diagonal linear recurrence whose multipliers are all positive cannot track parity in finite
// precision (their Theorem 1; Sarrof et al. 2024); one whose multipliers reach −1 flips its
// state's sign at each one bit. Counting modulo 3 or more (cycle navigation) needs complex
// eigenvalues, which no real diagonal recurrence has, extended or not. The input term b_t is left
// as each model computes it (RG-LRU scales it by sqrt(1 − a_t²) of the extended a_t).
#include <ATen/core/Tensor.h>

namespace recurlab::models {

inline at::Tensor signedDecay(const at::Tensor& a) { return 2 * a - 1; }

}  // namespace recurlab::models
