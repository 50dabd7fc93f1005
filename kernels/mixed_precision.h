#pragma once
// The fused ops under autocast (--precision bf16/fp16, experiments/training/precision.h). There
// a layer's U is a matmul's output in bfloat16/float16 while its recurrence weights, biases and
// states are float32 parameters: autocast casts matmul inputs, not the arguments of a custom
// op. So each op's entry (kernels/<op>.cpp) asks here once, before its checks, which dtype it
// computes in:
//   CUDA: U's dtype (the kernels take float16/bfloat16 and accumulate in float32),
//   CPU: float32 (the CPU loops are float32/float64 only): a documented up-cast; the op's
//        outputs are cast back to U's dtype so that the layer above sees what autocast gave.
// The casts are autograd ops: gradients flow back in each input's own dtype. Without autocast
// nothing is cast, and mixed dtypes stay the checks' errors.
#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <optional>
#include <vector>

namespace recurlab::kernels::detail {

// The dtype to cast U and `others` (undefined or non-floating ones ignored) to, or nullopt when
// autocast is off for U's device or the inputs already share a dtype the op computes in there.
std::optional<at::ScalarType> autocastComputeType(const at::Tensor& u,
                                                  std::initializer_list<at::Tensor> others);

// autocastComputeType's answer, or, without autocast, float32 for a float16/bfloat16 U on the
// CPU: an op whose CPU loops take float32/float64 only and that accepts reduced-precision CPU
// inputs (kernels/linear_recurrence.h) up-casts them at its entry the same way.
std::optional<at::ScalarType> upcastComputeType(const at::Tensor& u,
                                                std::initializer_list<at::Tensor> others);

// `t` in `type` when it is a defined floating tensor, else `t` itself.
at::Tensor castFloating(const at::Tensor& t, at::ScalarType type);

// Each output in `type` (U's dtype before the cast).
std::vector<at::Tensor> castOutputs(std::vector<at::Tensor> outputs, at::ScalarType type);

}  // namespace recurlab::kernels::detail
