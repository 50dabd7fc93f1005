#pragma once
// A weight-normalized linear map (Salimans & Kingma 2016), as ConvS2S uses for every Linear
// layer (Gehring et al. 2017, §3.4 and App. A): W = g · V / ||V|| row by row, y = x·Wᵀ + b.
// Init: V ~ N(0, std), g = ||V|| per row (so W starts equal to V), b = 0.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace recurlab::models {

class WeightNormLinearImpl : public torch::nn::Module {
 public:
  WeightNormLinearImpl(int64_t in_features, int64_t out_features, double init_std);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight() const;  // the effective W (out, in)

  torch::Tensor weight_v, weight_g, bias;  // (out, in), (out, 1), (out)
};
TORCH_MODULE(WeightNormLinear);

}  // namespace recurlab::models
