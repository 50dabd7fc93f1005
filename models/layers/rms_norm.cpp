#include "models/layers/rms_norm.h"

#include <torch/torch.h>

namespace recurlab::models {

RmsNormImpl::RmsNormImpl(int64_t width, double eps) : eps_(eps) {
  TORCH_CHECK(width > 0, "RmsNorm: width must be positive, got ", width);
  scale = register_parameter("scale", torch::zeros({width}));
}

void RmsNormImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  scale.zero_();
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.size(-1) == scale.size(0), "RmsNorm: last dimension must be ", scale.size(0),
              ", got ", x.sizes());
  return x * torch::rsqrt(x.square().mean(-1, true) + eps_) * (scale + 1);
}

}  // namespace recurlab::models
