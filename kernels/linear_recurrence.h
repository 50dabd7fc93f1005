#pragma once
// One op, any device: kernels/cpu/linear_recurrence.cpp and kernels/cuda/linear_recurrence.cpp
// implement it. The elementwise linear recurrence shared by minGRU/minLSTM (Feng et al. 2024),
// HGRN (Qin et al. 2023), RG-LRU (De et al. 2024) and the linear SRU (Lei et al. 2017, v1):
//
//   h_t = a_t ⊙ h_{t-1} + b_t
//
// Its backward is the same recurrence run the other way in time (docs/linear-recurrences.md):
//   g_t = ∂loss/∂h_t + a_{t+1} ⊙ g_{t+1},  ∂/∂b_t = g_t,  ∂/∂a_t = g_t ⊙ h_{t-1},  ∂/∂h_0 = a_1 ⊙ g_1.
//
// Layout, time-major, out = dirs·d columns; columns with unit index >= d (bidirectional) walk
// time backwards:
//   a, b      (L, B, out)
//   h0        (B, out)   initial state, or undefined for zeros
//   mask_pad  (L, B)     bool/uint8, nonzero = pad step, or undefined. A pad step is the
//                        identity (a = 1, b = 0): the state is frozen and h there repeats it,
//                        so a right-padded sequence ends, and its reverse direction starts,
//                        with the state of its real steps alone.
// float32 and float64 (float16 and bfloat16 on CUDA, with the state in float32; the
// differentiable op up-casts them to float32 on the CPU, kernels/mixed_precision.h).
//
// Two ways to walk time, chosen by shape (linearRecurrenceChunkLength), the same results to
// rounding: one walk per column (enough columns to fill the cores), or a chunked scan when
// there are few columns and many steps: each chunk of `chunk_length` steps summarizes itself
// from a zero state (the product of its multipliers and its last state), one sequential pass
// over the chunks per column turns the summaries into each chunk's true incoming state, and
// every chunk then walks its steps again from that state, writing its outputs.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "kernels/device_dispatch.h"

namespace recurlab::kernels {

// chunk_length values: by shape, or one sequential walk per column.
constexpr int64_t kChunkLengthByShape = -1;
constexpr int64_t kSequentialWalk = 0;

struct LinearRecurrenceOptions {
  int64_t hidden_size = 0;  // d, per direction
  bool bidirectional = false;
  // kChunkLengthByShape, kSequentialWalk, or n > 0: a chunked scan with chunks of n steps
  // (tests force each path; models leave it to the shape rule).
  int64_t chunk_length = kChunkLengthByShape;

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t outputSize() const { return directions() * hidden_size; }
};

struct LinearRecurrenceForwardResult {
  at::Tensor h;       // (L, B, out): every state, also what the backward reads
  at::Tensor last_h;  // (B, out): after the last step of each column's walk
};

struct LinearRecurrenceBackwardResult {
  at::Tensor grad_a, grad_b;  // (L, B, out); zero at pad steps
  at::Tensor grad_h0;         // (B, out)
};

// The shape rule (docs/linear-recurrences.md): kSequentialWalk, or the chunk length of a
// chunked scan, for `length` steps of `batch` rows on the CPU or on a CUDA device. It depends
// on the shape alone, never on the thread count, so results are the same for any --threads.
//   CPU: a walk is one run of up to 64 adjacent units of one row and direction; the scan is
//        used when there are fewer than 16 runs (fewer than a 16-core machine's threads) and at
//        least 256 steps, with chunks of max(32, ⌈L / ⌈64 / runs⌉⌉) steps (>= 64 work items).
//   CUDA: one thread per column; the scan is used below 16384 columns (a few threads per core
//        of a large GPU) with at least 256 steps, chunks of max(32, ⌈L / ⌈65536 / columns⌉⌉).
int64_t linearRecurrenceChunkLength(int64_t length, int64_t batch,
                                    const LinearRecurrenceOptions& opt, bool cuda);

// Raw kernels, no autograd, on a's device. grad_h / grad_last_h may be undefined (zero); h is
// the forward's output. Both check their arguments, throwing c10::Error that names the op, the
// tensor, its shape and what was expected.
LinearRecurrenceForwardResult linearRecurrenceForward(const at::Tensor& a, const at::Tensor& b,
                                                      const at::Tensor& h0,
                                                      const at::Tensor& mask_pad,
                                                      const LinearRecurrenceOptions& opt);

LinearRecurrenceBackwardResult linearRecurrenceBackward(
    const at::Tensor& grad_h, const at::Tensor& grad_last_h, const at::Tensor& a,
    const at::Tensor& h0, const at::Tensor& h, const at::Tensor& mask_pad,
    const LinearRecurrenceOptions& opt);

// Differentiable (one torch::autograd::Function for every device). Returns {h, last_h};
// gradients flow to a, b and h0.
std::vector<at::Tensor> linearRecurrence(const at::Tensor& a, const at::Tensor& b,
                                         const at::Tensor& h0, const at::Tensor& mask_pad,
                                         const LinearRecurrenceOptions& opt);

namespace detail {

// One call's inputs as the op hands them to its implementations: checked, contiguous, on a's
// device; optional ones undefined; mask_pad bool or uint8. b is undefined in a backward.
struct LinearRecurrenceTensors {
  at::Tensor a, b, h0, mask_pad;
};

// The implementations the op dispatches to (kernels/cpu/linear_recurrence.cpp, and
// kernels/cuda/linear_recurrence.cpp in a build with the CUDA kernels). No autograd. They
// trust their tensors and take opt.chunk_length resolved (kSequentialWalk or n > 0).
// grads.c is the forward's h.
LinearRecurrenceForwardResult linearRecurrenceCpuForward(const LinearRecurrenceTensors& in,
                                                         const LinearRecurrenceOptions& opt);
LinearRecurrenceBackwardResult linearRecurrenceCpuBackward(const BackwardTensors& grads,
                                                           const LinearRecurrenceTensors& in,
                                                           const LinearRecurrenceOptions& opt);
LinearRecurrenceForwardResult linearRecurrenceCudaForward(const LinearRecurrenceTensors& in,
                                                          const LinearRecurrenceOptions& opt);
LinearRecurrenceBackwardResult linearRecurrenceCudaBackward(const BackwardTensors& grads,
                                                            const LinearRecurrenceTensors& in,
                                                            const LinearRecurrenceOptions& opt);

}  // namespace detail
}  // namespace recurlab::kernels
