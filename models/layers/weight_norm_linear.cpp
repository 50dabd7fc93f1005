#include "models/layers/weight_norm_linear.h"

#include <torch/torch.h>

namespace recurlab::models {

WeightNormLinearImpl::WeightNormLinearImpl(int64_t in_features, int64_t out_features,
                                           double init_std) {
  TORCH_CHECK(in_features > 0 && out_features > 0,
              "WeightNormLinear: sizes must be positive, got ", in_features, " -> ", out_features);
  torch::Tensor v = torch::randn({out_features, in_features}) * init_std;
  weight_g = register_parameter("weight_g", v.pow(2).sum(1, true).sqrt());
  weight_v = register_parameter("weight_v", v);
  bias = register_parameter("bias", torch::zeros({out_features}));
}

torch::Tensor WeightNormLinearImpl::weight() const {
  return weight_v * (weight_g / weight_v.pow(2).sum(1, true).sqrt());
}

torch::Tensor WeightNormLinearImpl::forward(const torch::Tensor& x) {
  return torch::nn::functional::linear(x, weight(), bias);
}

}  // namespace recurlab::models
