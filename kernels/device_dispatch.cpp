#include "kernels/device_dispatch.h"

#include <ATen/Functions.h>
#include <c10/util/Exception.h>

namespace recurlab::kernels::detail {

bool runsOnCuda(const at::Tensor& u, const char* op) {
  TORCH_CHECK(u.defined(), op, ": U is undefined");
  if (u.is_cpu()) return false;
#ifdef RECURLAB_WITH_CUDA
  if (u.is_cuda()) return true;
#else
  TORCH_CHECK(!u.is_cuda(), op, ": U is on ", u.device(),
              " but recurlab was built without its CUDA kernels (configure against a "
              "CUDA-enabled LibTorch, e.g. scripts/gpu-check.sh)");
#endif
  TORCH_CHECK(false, op, ": no kernel for tensors on ", u.device(), " (CPU or CUDA only)");
  return false;
}

void checkSameDevice(const char* op, const at::Tensor& u,
                     std::initializer_list<NamedTensor> tensors) {
  TORCH_CHECK(u.defined(), op, ": U is undefined");
  for (const NamedTensor& t : tensors) {
    if (!t.tensor.defined()) continue;
    TORCH_CHECK(t.tensor.device() == u.device(), op, ": ", t.name, " is on ", t.tensor.device(),
                " but U is on ", u.device(), " (every tensor of one call must be on one device)");
  }
}

void checkGradient(const char* op, const at::Tensor& u, const at::Tensor& grad, const char* name,
                   c10::IntArrayRef shape) {
  if (!grad.defined()) return;
  TORCH_CHECK(grad.scalar_type() == u.scalar_type(), op, " backward: ", name, " has dtype ",
              grad.scalar_type(), " but U has ", u.scalar_type());
  TORCH_CHECK(grad.device() == u.device(), op, " backward: ", name, " is on ", grad.device(),
              " but U is on ", u.device());
  TORCH_CHECK(grad.sizes() == shape, op, " backward: ", name, " has shape ", grad.sizes(),
              ", expected ", shape);
}

at::Tensor undefinedAsEmpty(const at::Tensor& t, const at::Tensor& like) {
  return t.defined() ? t : at::empty({0}, like.options().requires_grad(false));
}

at::Tensor emptyAsUndefined(const at::Tensor& t) {
  return (t.defined() && t.dim() == 1 && t.size(0) == 0) ? at::Tensor() : t;
}

}  // namespace recurlab::kernels::detail
