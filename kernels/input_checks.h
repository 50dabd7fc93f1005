#pragma once
// The argument checks of the fused ops, one pattern for all of them. Each op (kernels/*.cpp)
// checks its arguments once per call, before it picks an implementation; the implementations
// (kernels/cpu/, kernels/cuda/) trust them. Every check throws c10::Error with a message that
// names the op, the tensor, what it got and what was expected.
#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <string>

namespace recurlab::kernels::detail {

// U must be defined, (length, batch, columns) with `columns` columns laid out as `layout`,
// float32 or float64 (float16 and bfloat16 on CUDA only), on the CPU or, in a build with the
// CUDA kernels (RECURLAB_WITH_CUDA), on a CUDA device.
void checkU(const char* op, const at::Tensor& u, int64_t columns, const std::string& layout);

// t must be defined, of U's dtype, on U's device, and of shape `shape`.
void checkLikeU(const char* op, const at::Tensor& u, const at::Tensor& t, const char* name,
                c10::IntArrayRef shape);

// The same for an optional tensor: undefined passes.
void checkOptionalLikeU(const char* op, const at::Tensor& u, const at::Tensor& t,
                        const char* name, c10::IntArrayRef shape);

// mask_pad, when defined: bool or uint8 (nonzero = pad), on U's device, (length, batch) as U.
void checkPadMask(const char* op, const at::Tensor& u, const at::Tensor& mask_pad);

// The tensors a raw backward adds to the forward's (messages name "<op> backward"): the states
// saved by the forward, c (length, batch, state_size), and the upstream gradients, each
// undefined (= zero) or like U: grad_h (length, batch, h_size), grad_last_c (batch,
// state_size).
void checkBackwardTensors(const char* op, const at::Tensor& u, const at::Tensor& grad_h,
                          const at::Tensor& grad_last_c, const at::Tensor& c, int64_t h_size,
                          int64_t state_size);

// How many times checkU has run on this thread: each op call checks its inputs once (tests).
int64_t inputChecksRun();

}  // namespace recurlab::kernels::detail
