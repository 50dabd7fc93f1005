#include "kernels/device_dispatch.h"

#include <ATen/Functions.h>

namespace recurlab::kernels::detail {

at::Tensor contiguousOrUndefined(const at::Tensor& t) { return t.defined() ? t.contiguous() : t; }

const uint8_t* padBytes(const at::Tensor& mask_pad) {
  return mask_pad.defined() ? static_cast<const uint8_t*>(mask_pad.data_ptr()) : nullptr;
}

BackwardTensors contiguousBackward(const at::Tensor& grad_h, const at::Tensor& grad_last_c,
                                   const at::Tensor& c) {
  return {contiguousOrUndefined(grad_h), contiguousOrUndefined(grad_last_c), c.contiguous()};
}

at::Tensor undefinedAsEmpty(const at::Tensor& t, const at::Tensor& like) {
  return t.defined() ? t : at::empty({0}, like.options().requires_grad(false));
}

at::Tensor emptyAsUndefined(const at::Tensor& t) {
  return (t.defined() && t.dim() == 1 && t.size(0) == 0) ? at::Tensor() : t;
}

}  // namespace recurlab::kernels::detail
