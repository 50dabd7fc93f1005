#pragma once
// Root-mean-square normalisation over the last dimension with a learned gain (Zhang & Sennrich
// 2019), in the form Griffin uses (De et al. 2024; google-deepmind/recurrentgemma): the gain is
// stored as an offset from 1, y = x / sqrt(mean(x²) + eps) ⊙ (1 + scale), scale starting at 0.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace recurlab::models {

class RmsNormImpl : public torch::nn::Module {
 public:
  explicit RmsNormImpl(int64_t width, double eps = 1e-6);
  void reset_parameters();
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor scale;  // (width)

 private:
  double eps_;
};
TORCH_MODULE(RmsNorm);

}  // namespace recurlab::models
