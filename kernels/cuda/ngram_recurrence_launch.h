#pragma once
// Launchers for the n-gram RCNN recurrence (Peng et al. (2018), Prop. 12, n = 1..4) on CUDA
// (kernels/cuda/ngram_recurrence.cu). Raw pointers, sizes and a stream; no Torch or CUDA header.
// Layouts are those of kernels/ngram_recurrence.h, contiguous and time-major:
//   u (L, B, d·k) per unit [z1, ..., zn, f, (o)]; c0 (B, n·d) = [c^(1) | ... | c^(n)];
//   mask_pad (L, B) bytes, nonzero = pad; h (L, B, d); c (L, B, n·d); last_c (B, n·d).
// Optional inputs are nullptr when absent.
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

constexpr int64_t kNgramMaxOrder = 4;

struct NgramCudaGeometry {
  int64_t length = 0, batch = 0, hidden_size = 0;
  int64_t n = 2;  // 1..kNgramMaxOrder
  bool output_gate = false;

  int64_t numMatrices() const { return n + 1 + (output_gate ? 1 : 0); }
  int64_t columns() const { return batch * hidden_size; }
};

struct NgramCudaForwardArgs {
  NgramCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* c0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  void* h = nullptr;
  void* c = nullptr;
  void* last_c = nullptr;
};

struct NgramCudaBackwardArgs {
  NgramCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* c0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  const void* c = nullptr;            // (L, B, n·d) saved by the forward
  const void* grad_h = nullptr;       // or nullptr for zeros
  const void* grad_last_c = nullptr;  // or nullptr for zeros
  void* grad_u = nullptr;             // (L, B, d·k); every element is written
  void* grad_c0 = nullptr;            // (B, n·d)
};

// Throw std::runtime_error naming the CUDA error if a launch fails (std::invalid_argument for
// n outside 1..4). Asynchronous otherwise.
void launchNgramRecurrenceForward(const NgramCudaForwardArgs& args, Stream stream);
void launchNgramRecurrenceBackward(const NgramCudaBackwardArgs& args, Stream stream);

// Bytes the kernels must move (each element read or written once), for GB/s figures.
inline int64_t ngramRecurrenceForwardBytes(const NgramCudaGeometry& g, CudaScalar s,
                                           bool with_c0, bool with_mask_pad) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = steps * g.numMatrices() * e;                    // u
  if (with_c0) n += g.n * cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n + steps * e + g.n * steps * e + g.n * cols * e;    // h, c, last_c
}

inline int64_t ngramRecurrenceBackwardBytes(const NgramCudaGeometry& g, CudaScalar s,
                                            bool with_c0, bool with_mask_pad,
                                            bool with_grad_last_c) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = 2 * steps * g.numMatrices() * e;                // u, grad_u
  n += g.n * steps * e + steps * e;                           // c, grad_h
  n += ((with_c0 ? 1 : 0) + (with_grad_last_c ? 1 : 0) + 1) * g.n * cols * e;  // + grad_c0
  if (with_mask_pad) n += g.length * g.batch;
  return n;
}

}  // namespace recurlab::kernels::cuda
