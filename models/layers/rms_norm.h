#pragma once
// Root-mean-square normalisation over the last dimension with a learned gain (Zhang & Sennrich
// 2019), y = x / sqrt(mean(x²) + eps) ⊙ gain, its gain stored in one of the two forms the
// references use: as an offset from 1, gain = 1 + scale with scale starting at 0, as Griffin
// (De et al. 2024; google-deepmind/recurrentgemma); or directly, gain = weight starting at 1, as
// fla-org/flash-linear-attention and most Transformers. The forms train differently under weight
// decay, and each maps one to one onto its reference's tensor.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace recurlab::models {

enum class RmsNormGain { kOffsetFromOne, kDirect };

class RmsNormImpl : public torch::nn::Module {
 public:
  explicit RmsNormImpl(int64_t width, double eps = 1e-6,
                       RmsNormGain gain = RmsNormGain::kOffsetFromOne);
  void reset_parameters();
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor gain() const { return weight.defined() ? weight : scale + 1; }

  torch::Tensor scale;   // (width), the offset form's parameter "scale"; else undefined
  torch::Tensor weight;  // (width), the direct form's parameter "weight"; else undefined

 private:
  double eps_;
};
TORCH_MODULE(RmsNorm);

}  // namespace recurlab::models
