#pragma once
// A gated linear attention layer in a pre-norm residual, the temporal half of the GLA
// Transformer's block (Yang et al. 2024, §4.4; fla-org/flash-linear-attention's GLABlock without
// its SwiGLU MLP):
//   out = x + GLA(RMSNorm(x))
// with the layer of models/layers/gla_layer.h; the residual needs input_size = hidden_size (a
// first block fed narrower embeddings has none: out = GLA(RMSNorm(x))). With output_norm (the
// stack's top block) out goes through a final RMSNorm, as the reference model's last norm. Four
// bare GLA layers did not train on PTB characters (4.4 valid BPC after an epoch, where one layer
// reached 2.4): the residual path and the norms are what deep stacks of it need.
// State: the GLA layer's, [S (B, H, d_k / H, d_v / H)]. Names follow the reference block
// (attn_norm, attn) and model (norm), whose RMSNorms store their gains directly (weight, starting
// at 1), so the weights map one to one (docs/weights.md).
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/layers/gla_layer.h"
#include "models/layers/rms_norm.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct GlaBlockOptions {
  GlaLayerOptions attention;  // its input_size and hidden_size are the block's
  bool output_norm = false;   // a final RMSNorm on the block's output
};

class GlaBlockImpl : public StackableLayer {
 public:
  explicit GlaBlockImpl(GlaBlockOptions options);
  void reset_parameters();

  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override;
  int64_t outputSize() const override { return options_.attention.hidden_size; }
  bool causal() const override { return true; }
  bool residual() const {
    return options_.attention.input_size == options_.attention.hidden_size;
  }
  const GlaBlockOptions& options() const { return options_; }

  RmsNorm attn_norm{nullptr}, norm{nullptr};
  GlaLayer attn{nullptr};

 private:
  GlaBlockOptions options_;
};
TORCH_MODULE(GlaBlock);

}  // namespace recurlab::models
