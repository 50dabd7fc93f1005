#pragma once
// Launchers for the rational recurrences (RRNN(B), RRNN(B)m+, RRNN(C), RRNN(F); plus-times and
// max-plus) on CUDA (kernels/cuda/rational_recurrence.cu). Raw pointers, sizes and a stream; no
// Torch or CUDA header. Layouts are those of kernels/rational_recurrence.h, contiguous and
// time-major, with S states (1 for B, 2 for C and F):
//   u (L, B, d·k) per unit [z, f, (o)] (B) or [z1, z2, f1, f2, (o)] (C, F);
//   weight (3·d) = pre-activations [b_r | b_p1 | b_p2] (F only); c0 (B, S·d) = [c1 | c2];
//   mask_pad (L, B) bytes, nonzero = pad; h (L, B, d); c (L, B, S·d); last_c (B, S·d).
// Optional inputs are nullptr when absent (c0 absent: the semiring zero, -inf for max-plus).
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

// Same values as recurlab::kernels::RationalPattern and Semiring (checked in the glue).
enum class RationalCudaPattern : int { B = 0, C = 1, F = 2 };
enum class CudaSemiring : int { PlusTimes = 0, MaxPlus = 1 };

struct RationalCudaGeometry {
  int64_t length = 0, batch = 0, hidden_size = 0;
  RationalCudaPattern pattern = RationalCudaPattern::B;
  CudaSemiring semiring = CudaSemiring::PlusTimes;
  bool output_gate = false;

  int64_t numStates() const { return pattern == RationalCudaPattern::B ? 1 : 2; }
  int64_t numMatrices() const { return 2 * numStates() + (output_gate ? 1 : 0); }
  bool hasWeight() const { return pattern == RationalCudaPattern::F; }
  int64_t columns() const { return batch * hidden_size; }
};

struct RationalCudaForwardArgs {
  RationalCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* weight = nullptr;  // pattern F only
  const void* c0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  void* h = nullptr;
  void* c = nullptr;
  void* last_c = nullptr;
};

struct RationalCudaBackwardArgs {
  RationalCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* weight = nullptr;
  const void* c0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  const void* c = nullptr;            // (L, B, S·d) saved by the forward
  const void* grad_h = nullptr;       // or nullptr for zeros
  const void* grad_last_c = nullptr;  // or nullptr for zeros
  void* grad_u = nullptr;             // (L, B, d·k); every element is written
  void* grad_c0 = nullptr;            // (B, S·d)
  void* column_grads = nullptr;       // pattern F: (3, B, d) accumulators (float, or double)
  void* param_grads = nullptr;        // pattern F: (3, d) accumulators, summed over the batch
};

// Throw std::runtime_error naming the CUDA error if a launch fails. Asynchronous otherwise.
void launchRationalRecurrenceForward(const RationalCudaForwardArgs& args, Stream stream);
// Pattern F: two kernels, the per-column backward and the batch sum of weight gradients.
void launchRationalRecurrenceBackward(const RationalCudaBackwardArgs& args, Stream stream);

// Bytes the kernels must move (each element read or written once), for GB/s figures.
inline int64_t rationalRecurrenceForwardBytes(const RationalCudaGeometry& g, CudaScalar s,
                                              bool with_c0, bool with_mask_pad) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  const int64_t S = g.numStates();
  int64_t n = steps * g.numMatrices() * e;              // u
  if (g.hasWeight()) n += 3 * g.hidden_size * e;
  if (with_c0) n += S * cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n + steps * e + S * steps * e + S * cols * e;  // h, c, last_c
}

inline int64_t rationalRecurrenceBackwardBytes(const RationalCudaGeometry& g, CudaScalar s,
                                               bool with_c0, bool with_mask_pad,
                                               bool with_grad_last_c) {
  const int64_t e = bytesOf(s), a = accumulatorBytesOf(s);
  const int64_t steps = g.length * g.columns(), cols = g.columns(), S = g.numStates();
  int64_t n = 2 * steps * g.numMatrices() * e;  // u, grad_u
  n += S * steps * e + steps * e;               // c, grad_h
  n += ((with_c0 ? 1 : 0) + (with_grad_last_c ? 1 : 0) + 1) * S * cols * e;  // + grad_c0
  if (with_mask_pad) n += g.length * g.batch;
  if (g.hasWeight()) n += 3 * g.hidden_size * e + 2 * 3 * cols * a + 3 * g.hidden_size * a;
  return n;
}

}  // namespace recurlab::kernels::cuda
