#pragma once
// Large outputs of the fused CPU kernels taken from a small per-thread pool of buffers that no
// tensor uses any more, instead of a fresh allocation per call. glibc serves allocations above
// its mmap threshold with fresh pages from the kernel, and the first write to each 4 KiB page
// faults: the SRU backward's 15 MB dU (B 32, L 150, bidirectional d 128) took ~3,600 page
// faults per call, each a trip into the kernel (docs/qa.md, Speed). A buffer is reused only
// when the pool holds the last reference to its storage, so a tensor still alive anywhere
// (a saved activation, a .grad, a view) is never overwritten.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace recurlab::kernels::detail {

// An uninitialized contiguous CPU tensor of these sizes, as at::empty: every element must be
// written before it is read. Buffers below kMinRecycledBytes are plain allocations.
at::Tensor recycledEmpty(at::IntArrayRef sizes, const at::TensorOptions& options);

constexpr int64_t kMinRecycledBytes = int64_t{1} << 18;  // 256 KiB
constexpr int64_t kMaxRecycledBuffers = 64;               // per thread

// How many buffers the calling thread's pool holds (tests).
int64_t recycledBufferCount();

}  // namespace recurlab::kernels::detail
