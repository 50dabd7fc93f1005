#include "kernels/cpu/recycled_buffers.h"

#include <ATen/ops/empty.h>

#include <vector>

namespace recurlab::kernels::detail {
namespace {

// Flat 1-D buffers; a request is served by a view of the smallest free one that fits.
thread_local std::vector<at::Tensor> pool;

bool isFree(const at::Tensor& buffer) {
  return buffer.use_count() == 1 && buffer.storage().use_count() == 1;
}

}  // namespace

at::Tensor recycledEmpty(at::IntArrayRef sizes, const at::TensorOptions& options) {
  int64_t numel = 1;
  for (const int64_t s : sizes) numel *= s;
  const int64_t bytes = numel * static_cast<int64_t>(options.dtype().itemsize());
  if (!options.device().is_cpu() || bytes < kMinRecycledBytes) return at::empty(sizes, options);
  at::Tensor* best = nullptr;
  for (auto& buffer : pool)
    if (buffer.dtype() == options.dtype() && buffer.numel() >= numel && isFree(buffer) &&
        (!best || buffer.numel() < best->numel()))
      best = &buffer;
  if (!best) {
    // A new buffer, an eighth larger than asked so that the next, slightly longer batch fits;
    // it replaces the smallest free buffer when the pool is full.
    at::Tensor fresh = at::empty({numel + numel / 8}, options);
    if (static_cast<int64_t>(pool.size()) < kMaxRecycledBuffers) {
      pool.push_back(fresh);
      best = &pool.back();
    } else {
      for (auto& buffer : pool)
        if (isFree(buffer) && (!best || buffer.numel() < best->numel())) best = &buffer;
      if (!best) return fresh.narrow(0, 0, numel).view(sizes);
      *best = fresh;
    }
  }
  return best->narrow(0, 0, numel).view(sizes);
}

int64_t recycledBufferCount() { return static_cast<int64_t>(pool.size()); }

}  // namespace recurlab::kernels::detail
