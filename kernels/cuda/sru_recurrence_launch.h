#pragma once
// Launchers for the SRU recurrence on CUDA (kernels/cuda/sru_recurrence.cu). Raw pointers,
// sizes and a stream only: no Torch, no CUDA header, so nvcc, the Torch glue and CPU-only code
// (e.g. the speed experiment's bytes count) can all include it.
//
// Layouts are those of kernels/sru_recurrence.h, all contiguous and time-major:
//   u (L, B, out·k) interleaved per unit; x (L, B, out); weight_c, bias (2·out) = [f | r];
//   c0, mask_c (B, out); mask_pad (L, B) bytes, nonzero = pad; h, c (L, B, out); last_c (B, out).
// Optional inputs are nullptr when absent. Every float-typed pointer has the element type named
// by `scalar`; column_grads and param_grads hold accumulators (float, or double for double).
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

// Same values as recurlab::kernels::SruSkip (checked in the glue).
enum class SruCudaSkip : int { None = 0, ScaledInput = 1, LearnedProjection = 2 };

struct SruCudaGeometry {
  int64_t length = 0;       // L
  int64_t batch = 0;        // B
  int64_t hidden_size = 0;  // d, per direction
  bool bidirectional = false;
  SruCudaSkip skip = SruCudaSkip::ScaledInput;

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t outputSize() const { return directions() * hidden_size; }
  int64_t numMatrices() const { return skip == SruCudaSkip::LearnedProjection ? 4 : 3; }
  int64_t columns() const { return batch * outputSize(); }
};

struct SruCudaForwardArgs {
  SruCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  double alpha = 1.0;  // skip scale, ScaledInput only
  const void* u = nullptr;
  const void* x = nullptr;  // ScaledInput only
  const void* weight_c = nullptr;
  const void* bias = nullptr;
  const void* c0 = nullptr;
  const void* mask_c = nullptr;
  const uint8_t* mask_pad = nullptr;
  void* h = nullptr;
  void* c = nullptr;
  void* last_c = nullptr;
};

struct SruCudaBackwardArgs {
  SruCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  double alpha = 1.0;
  const void* u = nullptr;
  const void* x = nullptr;
  const void* weight_c = nullptr;
  const void* bias = nullptr;
  const void* c0 = nullptr;
  const void* mask_c = nullptr;
  const uint8_t* mask_pad = nullptr;
  const void* c = nullptr;            // (L, B, out) saved by the forward
  const void* grad_h = nullptr;       // (L, B, out) or nullptr for zeros
  const void* grad_last_c = nullptr;  // (B, out) or nullptr for zeros
  void* grad_u = nullptr;             // (L, B, out·k); every element is written
  void* grad_x = nullptr;             // (L, B, out), ScaledInput only; every element is written
  void* grad_c0 = nullptr;            // (B, out)
  void* column_grads = nullptr;       // (4, B, out) accumulators: d v_f, d v_r, d b_f, d b_r
  void* param_grads = nullptr;        // (4, out) accumulators: column_grads summed over batch
};

// Both throw std::runtime_error naming the CUDA error if a launch fails. Asynchronous otherwise.
void launchSruForward(const SruCudaForwardArgs& args, Stream stream);
// Two kernels: the per-column backward, then the batch reduction in batch order (no atomics).
void launchSruBackward(const SruCudaBackwardArgs& args, Stream stream);

// Bytes the kernels must move to and from global memory (each element read or written once),
// for the GB/s figure of the speed experiment.
inline int64_t sruForwardBytes(const SruCudaGeometry& g, CudaScalar s, bool with_c0,
                               bool with_mask_c, bool with_mask_pad) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = steps * g.numMatrices() * e;                          // u
  if (g.skip == SruCudaSkip::ScaledInput) n += steps * e;           // x
  n += 4 * g.outputSize() * e;                                      // weight_c, bias
  n += ((with_c0 ? 1 : 0) + (with_mask_c ? 1 : 0)) * cols * e;      // c0, mask_c
  if (with_mask_pad) n += g.length * g.batch;                       // mask_pad
  n += 2 * steps * e + cols * e;                                    // h, c, last_c
  return n;
}

inline int64_t sruBackwardBytes(const SruCudaGeometry& g, CudaScalar s, bool with_c0,
                                bool with_mask_c, bool with_mask_pad, bool with_grad_last_c) {
  const int64_t e = bytesOf(s), a = accumulatorBytesOf(s);
  const int64_t steps = g.length * g.columns(), cols = g.columns();
  const bool scaled = g.skip == SruCudaSkip::ScaledInput;
  int64_t n = steps * g.numMatrices() * e * 2;                      // u, grad_u
  if (scaled) n += steps * e * 2;                                   // x, grad_x
  n += 2 * steps * e;                                               // c, grad_h
  n += 4 * g.outputSize() * e;                                      // weight_c, bias
  n += ((with_c0 ? 1 : 0) + (with_mask_c ? 1 : 0) + (with_grad_last_c ? 1 : 0)) * cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  n += cols * e;                                                    // grad_c0
  n += 2 * 4 * cols * a + 4 * g.outputSize() * a;                   // column_grads w+r, params
  return n;
}

}  // namespace recurlab::kernels::cuda
