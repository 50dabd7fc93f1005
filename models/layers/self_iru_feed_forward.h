#pragma once
// The non-autoregressive Self-IRU of Zhang et al. (2021), App. A.1, a drop-in for a Transformer's
// position-wise feed-forward block. Level l = depth..0, position-wise (no recurrence):
//   level 0:  f = σ(F_f x), o = σ(F_o x)
//   level l:  [α, β] = σ(G x) (two soft recursion gates per position),
//             f = σ(α·S^(l-1)(x) + (1-α)·F_f x),  o = σ(β·S^(l-1)(x) + (1-β)·F_o x)
//   z = tanh(F_z x),  h = f ⊙ x + o ⊙ z + x
// F_* are linear maps d_model -> d_model with bias (the paper's "linear base transformations"),
// computed in one matmul. App. A.1 writes the same Self-IRU^(l-1) in f and o, so each level has
// ONE child (depth + 1 levels in all), unlike the autoregressive unit's two children.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>

namespace recurlab::models {

class SelfIruFeedForwardImpl : public torch::nn::Module {
 public:
  SelfIruFeedForwardImpl(int64_t d_model, int64_t depth);
  // x (..., d_model) -> (..., d_model)
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor weight, bias;            // (d, 3d), (3d): [f, o, z] blocks
  torch::Tensor gate_weight, gate_bias;  // (d, 2), (2); levels > 0 only
  std::shared_ptr<SelfIruFeedForwardImpl> child;

 private:
  int64_t d_model_, depth_;
};
TORCH_MODULE(SelfIruFeedForward);

}  // namespace recurlab::models
