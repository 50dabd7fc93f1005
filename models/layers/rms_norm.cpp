#include "models/layers/rms_norm.h"

#include <torch/torch.h>

namespace recurlab::models {

RmsNormImpl::RmsNormImpl(int64_t width, double eps, RmsNormGain gain) : eps_(eps) {
  TORCH_CHECK(width > 0, "RmsNorm: width must be positive, got ", width);
  if (gain == RmsNormGain::kOffsetFromOne)
    scale = register_parameter("scale", torch::zeros({width}));
  else
    weight = register_parameter("weight", torch::ones({width}));
}

void RmsNormImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  if (scale.defined()) scale.zero_();
  if (weight.defined()) weight.fill_(1.0);
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  const int64_t width = (weight.defined() ? weight : scale).size(0);
  TORCH_CHECK(x.size(-1) == width, "RmsNorm: last dimension must be ", width, ", got ",
              x.sizes());
  return x * torch::rsqrt(x.square().mean(-1, true) + eps_) * gain();
}

}  // namespace recurlab::models
