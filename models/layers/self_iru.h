#pragma once
// The autoregressive Self-IRU unit (Zhang et al., 2021, App. A; as in the official code's
// structure). A cell of recursion depth ℓ (root ℓ = 1, leaves ℓ = L + 1):
//   [z, f̂, ô]_t = P x_t + b_P                  (interleaved per unit, like SRU's U)
//   leaf:      f̃ = f̂, õ = ô
//   internal:  [τ1, τ2]_t = σ(T x_t + b_T)     (two soft recursion gates per step)
//              f̃ = τ1·F_t + (1-τ1)·f̂,  õ = τ2·O_t + (1-τ2)·ô
//              F, O = outputs of two child cells of depth ℓ+1 (own parameters) on x
//   z = tanh(z), f = σ(f̃), o = σ(õ),  c_t = f ⊙ c_{t-1} + (1-f) ⊙ z,  h_t = o ⊙ c_t (+ x_t)
// Where Zhang et al. (2021), App. A.3 and the official code differ we follow the paper:
// z = tanh (code: ReLU) and c = f⊙c_{t-1} + (1-f)⊙z (code: f⊙z + (1-f)⊙c_{t-1}). The residual
// + x_t needs input_size == hidden_size and is dropped otherwise. L = 0 is one leaf: the SRU-like
// unit of Zhang et al. (2021), App. A.3. A layer of depth L holds 2^(L+1) - 1 cells. The pooling
// is the fused QRNN fo-pooling kernel.
// State (models/layers/sequence_state.h): each cell's last c (B, d), children [child_f, child_o].
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>

#include "models/layers/stackable_layer.h"

namespace recurlab::models {

class SelfIruCellImpl : public torch::nn::Module {
 public:
  // levels_below: number of recursion levels under this cell (0 = leaf).
  SelfIruCellImpl(int64_t input_size, int64_t hidden_size, int64_t levels_below);

  // input (L, B, input_size); mask_pad (L, B) or undefined. Returns h (L, B, hidden_size).
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& mask_pad = {}) {
    return forwardSequence(input, mask_pad, {}).features;
  }
  // The same from `state` (this cell's [c], children [child_f, child_o]; empty = zeros), and
  // the state after each sequence's last real step.
  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state);

  int64_t numCells() const;
  bool hasResidual() const { return input_size_ == hidden_size_; }

  torch::Tensor weight, bias;             // P: (input, 3d), (3d), [z, f, o] per unit
  torch::Tensor gate_weight, gate_bias;   // T: (input, 2), (2); internal cells only
  std::shared_ptr<SelfIruCellImpl> child_f, child_o;

 private:
  int64_t input_size_, hidden_size_, levels_below_;
};
TORCH_MODULE(SelfIruCell);

struct SelfIruLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t depth = 1;  // maximum recursion depth L
};

class SelfIruLayerImpl : public StackableLayer {
 public:
  explicit SelfIruLayerImpl(SelfIruLayerOptions options);
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& mask_pad = {}) {
    return root->forward(input, mask_pad);
  }
  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override {
    return root->forwardSequence(input, mask_pad, state);
  }
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }  // gates and pooling look back only
  const SelfIruLayerOptions& options() const { return options_; }

  SelfIruCell root{nullptr};

 private:
  SelfIruLayerOptions options_;
};
TORCH_MODULE(SelfIruLayer);

}  // namespace recurlab::models
