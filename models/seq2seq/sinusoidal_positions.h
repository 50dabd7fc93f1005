#pragma once
// Sinusoidal position embeddings in fairseq's (tensor2tensor's) layout:
// half = d/2, w_i = exp(-i·ln(10000)/(half-1)), row p = [sin(p·w) | cos(p·w)] (two halves, not
// interleaved), a zero column appended when d is odd. Positions count from 2 for the first real
// token (fairseq's padding_idx + 1 with its pad id 1), whatever our own pad id is.
#include <ATen/core/Tensor.h>

namespace recurlab::models {

// The first real token's position.
constexpr int64_t kFirstPosition = 2;

// positions: int64 of any shape; returns float (..., d). Callers zero the rows of pad steps.
at::Tensor sinusoidalPositions(const at::Tensor& positions, int64_t d);

}  // namespace recurlab::models
