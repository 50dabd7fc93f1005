#include "models/layers/gla_block.h"

#include <torch/torch.h>

namespace recurlab::models {

GlaBlockImpl::GlaBlockImpl(GlaBlockOptions options) : options_(options) {
  const auto& o = options_.attention;
  TORCH_CHECK(o.input_size > 0 && o.hidden_size > 0,
              "GlaBlock: input_size and hidden_size must be positive, got ", o.input_size, " and ",
              o.hidden_size);
  // The reference stores the gains directly (fla's RMSNorm, eps its GLAConfig's norm_eps).
  attn_norm = register_module("attn_norm", RmsNorm(o.input_size, 1e-6, RmsNormGain::kDirect));
  attn = register_module("attn", GlaLayer(o));
  if (options_.output_norm)
    norm = register_module("norm", RmsNorm(o.hidden_size, 1e-6, RmsNormGain::kDirect));
}

void GlaBlockImpl::reset_parameters() {
  attn_norm->reset_parameters();
  attn->reset_parameters();
  if (norm) norm->reset_parameters();
}

SequenceOutput GlaBlockImpl::forwardSequence(const torch::Tensor& input,
                                             const torch::Tensor& mask_pad,
                                             const SequenceState& state) {
  TORCH_CHECK(input.dim() == 3 && input.size(2) == options_.attention.input_size,
              "GlaBlock: input must be (length, batch, ", options_.attention.input_size,
              "), got ", input.sizes());
  SequenceOutput out = attn->forwardSequence(attn_norm(input), mask_pad, state);
  if (residual()) out.features = input + out.features;
  if (norm) out.features = norm(out.features);
  return out;
}

}  // namespace recurlab::models
