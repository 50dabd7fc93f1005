#pragma once
// Gates from a reduced-precision projection (bfloat16 or float16 under autocast, whose matmuls
// give them) computed in float32. A decay a_t near 1 rounds in bfloat16 to 1 or 1 − 2⁻⁸: a
// memory of forever or of 256 steps where the model asked for, say, 1000. The fused SRU and
// QRNN kernels compute their gates from U in float for the same reason.
#include <ATen/core/Tensor.h>

namespace recurlab::models {

inline at::Tensor inGatePrecision(const at::Tensor& projection) {
  const auto type = projection.scalar_type();
  return type == at::kBFloat16 || type == at::kHalf ? projection.to(at::kFloat) : projection;
}

}  // namespace recurlab::models
