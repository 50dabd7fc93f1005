#pragma once
// Launchers for the elementwise linear recurrence on CUDA (kernels/cuda/linear_recurrence.cu).
// Raw pointers, sizes and a stream; no Torch or CUDA header. Layouts are those of
// kernels/linear_recurrence.h, all contiguous and time-major:
//   a, b, h, grad_h, grad_a, grad_b (L, B, out); h0, last_h, grad_last_h, grad_h0 (B, out);
//   mask_pad (L, B) bytes, nonzero = pad; out = dirs·d, columns j >= d walk time backwards.
// Optional inputs are nullptr when absent; float-typed pointers have the type named by
// `scalar`; the chunked scan's workspace holds accumulators (float, or double for double).
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

struct LinearRecurrenceCudaGeometry {
  int64_t length = 0, batch = 0, hidden_size = 0;
  bool bidirectional = false;
  int64_t chunk_length = 0;  // 0: one sequential walk per column; n > 0: chunked scan

  int64_t directions() const { return bidirectional ? 2 : 1; }
  int64_t outputSize() const { return directions() * hidden_size; }
  int64_t columns() const { return batch * outputSize(); }
  int64_t chunks() const {
    return chunk_length > 0 ? (length + chunk_length - 1) / chunk_length : 0;
  }
  // Accumulators the chunked scan needs: each chunk's product of multipliers and its state.
  int64_t workspaceElements() const { return 2 * chunks() * columns(); }
};

struct LinearRecurrenceCudaForwardArgs {
  LinearRecurrenceCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* h0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  void* h = nullptr;          // every element is written
  void* last_h = nullptr;
  void* workspace = nullptr;  // workspaceElements() accumulators, chunked scan only
};

struct LinearRecurrenceCudaBackwardArgs {
  LinearRecurrenceCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* a = nullptr;
  const void* h0 = nullptr;
  const uint8_t* mask_pad = nullptr;
  const void* h = nullptr;            // saved by the forward
  const void* grad_h = nullptr;       // or nullptr for zeros
  const void* grad_last_h = nullptr;  // or nullptr for zeros
  void* grad_a = nullptr;             // every element is written (zeros at pad steps)
  void* grad_b = nullptr;
  void* grad_h0 = nullptr;
  void* workspace = nullptr;
};

// Throw std::runtime_error naming the CUDA error if a launch fails. Asynchronous otherwise.
void launchLinearRecurrenceForward(const LinearRecurrenceCudaForwardArgs& args, Stream stream);
void launchLinearRecurrenceBackward(const LinearRecurrenceCudaBackwardArgs& args, Stream stream);

// Bytes a sequential walk moves (each element read or written once), for GB/s figures; the
// chunked scan reads a and b (a and grad_h) twice.
inline int64_t linearRecurrenceForwardBytes(const LinearRecurrenceCudaGeometry& g, CudaScalar s,
                                            bool with_h0, bool with_mask_pad) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = 3 * steps * e + cols * e;  // a, b, h; last_h
  if (with_h0) n += cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n;
}

inline int64_t linearRecurrenceBackwardBytes(const LinearRecurrenceCudaGeometry& g,
                                             CudaScalar s, bool with_h0, bool with_mask_pad,
                                             bool with_grad_last_h) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = 5 * steps * e + cols * e;  // a, h, grad_h, grad_a, grad_b; grad_h0
  n += ((with_h0 ? 1 : 0) + (with_grad_last_h ? 1 : 0)) * cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n;
}

}  // namespace recurlab::kernels::cuda
