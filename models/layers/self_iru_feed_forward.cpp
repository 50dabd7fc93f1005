#include "models/layers/self_iru_feed_forward.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

SelfIruFeedForwardImpl::SelfIruFeedForwardImpl(int64_t d_model, int64_t depth)
    : d_model_(d_model), depth_(depth) {
  TORCH_CHECK(d_model > 0, "SelfIruFeedForward: d_model must be positive, got ", d_model);
  TORCH_CHECK(depth >= 0, "SelfIruFeedForward: depth must be >= 0, got ", depth);
  const double a = std::sqrt(3.0 / static_cast<double>(d_model));
  weight = register_parameter("weight", torch::empty({d_model, 3 * d_model}).uniform_(-a, a));
  bias = register_parameter("bias", torch::zeros({3 * d_model}));
  if (depth > 0) {
    gate_weight = register_parameter("gate_weight", torch::empty({d_model, 2}).uniform_(-a, a));
    gate_bias = register_parameter("gate_bias", torch::zeros({2}));
    child = register_module("child", std::make_shared<SelfIruFeedForwardImpl>(d_model, depth - 1));
  }
}

torch::Tensor SelfIruFeedForwardImpl::forward(const torch::Tensor& x) {
  TORCH_CHECK(x.dim() >= 1 && x.size(-1) == d_model_, "SelfIruFeedForward: expected last dimension ",
              d_model_, ", got input of shape ", x.sizes());
  const torch::Tensor pre = torch::matmul(x, weight) + bias;
  torch::Tensor f_pre = pre.narrow(-1, 0, d_model_);
  torch::Tensor o_pre = pre.narrow(-1, d_model_, d_model_);
  const torch::Tensor z = torch::tanh(pre.narrow(-1, 2 * d_model_, d_model_));
  if (child) {
    const torch::Tensor gates = torch::sigmoid(torch::matmul(x, gate_weight) + gate_bias);
    const torch::Tensor alpha = gates.narrow(-1, 0, 1), beta = gates.narrow(-1, 1, 1);
    const torch::Tensor below = child->forward(x);
    f_pre = alpha * below + (1 - alpha) * f_pre;
    o_pre = beta * below + (1 - beta) * o_pre;
  }
  return torch::sigmoid(f_pre) * x + torch::sigmoid(o_pre) * z + x;
}

}  // namespace recurlab::models
