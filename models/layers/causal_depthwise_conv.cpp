#include "models/layers/causal_depthwise_conv.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

CausalDepthwiseConvImpl::CausalDepthwiseConvImpl(int64_t features, int64_t width)
    : width_(width) {
  TORCH_CHECK(features > 0, "CausalDepthwiseConv: features must be positive, got ", features);
  TORCH_CHECK(width > 0, "CausalDepthwiseConv: width must be positive, got ", width);
  weight = register_parameter("weight", torch::empty({width, features}));
  bias = register_parameter("bias", torch::empty({features}));
  reset_parameters();
}

void CausalDepthwiseConvImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  // Griffin's init: variance 0.01 / width.
  weight.normal_(0.0, std::sqrt(0.01 / static_cast<double>(width_)));
  bias.zero_();
}

std::pair<torch::Tensor, torch::Tensor> CausalDepthwiseConvImpl::forward(
    const torch::Tensor& x, const torch::Tensor& mask_pad, const torch::Tensor& previous) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == weight.size(1),
              "CausalDepthwiseConv: input must be (length, batch, ", weight.size(1), "), got ",
              x.sizes());
  const int64_t L = x.size(0), carried = width_ - 1;
  if (carried == 0) return {x * weight[0] + bias, x.new_zeros({x.size(1), 0, x.size(2)})};
  const torch::Tensor state = lastRealSteps(previous, x, mask_pad, carried);
  const torch::Tensor before =
      previous.defined() ? previous.transpose(0, 1).to(x.dtype())
                         : torch::zeros({carried, x.size(1), x.size(2)}, x.options());
  const torch::Tensor context = torch::cat({before, x});  // (carried + L, B, d)
  torch::Tensor y = bias.expand_as(x);
  for (int64_t s = 0; s < width_; ++s)
    y = y + context.slice(0, carried - s, carried - s + L) * weight[width_ - 1 - s];
  return {y, state};
}

}  // namespace recurlab::models
