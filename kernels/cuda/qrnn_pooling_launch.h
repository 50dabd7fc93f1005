#pragma once
// Launchers for QRNN fo/f-pooling on CUDA (kernels/cuda/qrnn_pooling.cu). Raw pointers, sizes
// and a stream; no Torch or CUDA header. Layouts are those of kernels/qrnn_pooling.h, all
// contiguous and time-major:
//   u (L, B, d·k) [z, f, (o)] interleaved per unit; c0 (B, d); zoneout (L, B, d);
//   mask_pad (L, B) bytes, nonzero = pad; h, c (L, B, d); last_c (B, d).
// Optional inputs are nullptr when absent; float-typed pointers have the type named by `scalar`.
#include <cstdint>

#include "kernels/cuda/cuda_scalar.h"

namespace recurlab::kernels::cuda {

struct QrnnCudaGeometry {
  int64_t length = 0, batch = 0, hidden_size = 0;
  bool output_gate = true;  // fo-pooling (k = 3) or f-pooling (k = 2)

  int64_t numMatrices() const { return output_gate ? 3 : 2; }
  int64_t columns() const { return batch * hidden_size; }
};

struct QrnnCudaForwardArgs {
  QrnnCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* c0 = nullptr;
  const void* zoneout = nullptr;
  const uint8_t* mask_pad = nullptr;
  void* h = nullptr;
  void* c = nullptr;
  void* last_c = nullptr;
};

struct QrnnCudaBackwardArgs {
  QrnnCudaGeometry geometry;
  CudaScalar scalar = CudaScalar::Float;
  const void* u = nullptr;
  const void* c0 = nullptr;
  const void* zoneout = nullptr;
  const uint8_t* mask_pad = nullptr;
  const void* c = nullptr;            // (L, B, d) saved by the forward
  const void* grad_h = nullptr;       // or nullptr for zeros
  const void* grad_last_c = nullptr;  // or nullptr for zeros
  void* grad_u = nullptr;             // (L, B, d·k); every element is written
  void* grad_c0 = nullptr;            // (B, d)
};

// Throw std::runtime_error naming the CUDA error if a launch fails. Asynchronous otherwise.
void launchQrnnPoolingForward(const QrnnCudaForwardArgs& args, Stream stream);
void launchQrnnPoolingBackward(const QrnnCudaBackwardArgs& args, Stream stream);

// Bytes the kernels must move (each element read or written once), for GB/s figures.
inline int64_t qrnnPoolingForwardBytes(const QrnnCudaGeometry& g, CudaScalar s, bool with_c0,
                                       bool with_zoneout, bool with_mask_pad) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = steps * g.numMatrices() * e;  // u
  if (with_zoneout) n += steps * e;
  if (with_c0) n += cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n + 2 * steps * e + cols * e;      // h, c, last_c
}

inline int64_t qrnnPoolingBackwardBytes(const QrnnCudaGeometry& g, CudaScalar s, bool with_c0,
                                        bool with_zoneout, bool with_mask_pad,
                                        bool with_grad_last_c) {
  const int64_t e = bytesOf(s), steps = g.length * g.columns(), cols = g.columns();
  int64_t n = 2 * steps * g.numMatrices() * e;  // u, grad_u
  n += 2 * steps * e;                           // c, grad_h
  if (with_zoneout) n += steps * e;
  n += ((with_c0 ? 1 : 0) + (with_grad_last_c ? 1 : 0)) * cols * e;
  if (with_mask_pad) n += g.length * g.batch;
  return n + cols * e;                          // grad_c0
}

}  // namespace recurlab::kernels::cuda
