#include "models/layers/rg_lru_block.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

RgLruBlockImpl::RgLruBlockImpl(RgLruBlockOptions options) : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0 && o.hidden_size > 0,
              "RgLruBlock: input_size and hidden_size must be positive, got ", o.input_size,
              " and ", o.hidden_size);
  TORCH_CHECK(o.conv_width >= 1, "RgLruBlock: conv_width must be at least 1, got ",
              o.conv_width);
  const int64_t d = o.hidden_size;
  temporal_pre_norm = register_module("temporal_pre_norm", RmsNorm(o.input_size));
  linear_y = register_module("linear_y", torch::nn::Linear(o.input_size, d));
  linear_x = register_module("linear_x", torch::nn::Linear(o.input_size, d));
  conv_1d = register_module("conv_1d", CausalDepthwiseConv(d, o.conv_width));
  RgLruLayerOptions lru;
  lru.input_size = d;
  lru.hidden_size = d;
  lru.decay_scale = o.decay_scale;
  lru.negative_eigenvalues = o.negative_eigenvalues;
  lru.input_projection = false;
  rg_lru = register_module("rg_lru", RgLruLayer(lru));
  linear_out = register_module("linear_out", torch::nn::Linear(d, d));
  if (o.output_norm) final_norm = register_module("final_norm", RmsNorm(d));
  reset_parameters();
}

void RgLruBlockImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  // Griffin's init: normal weights of variance 1/fan-in, zero biases.
  const double in_std = 1.0 / std::sqrt(static_cast<double>(options_.input_size));
  const double out_std = 1.0 / std::sqrt(static_cast<double>(options_.hidden_size));
  for (auto* linear : {&linear_y, &linear_x, &linear_out}) {
    (*linear)->weight.normal_(0.0, linear == &linear_out ? out_std : in_std);
    (*linear)->bias.zero_();
  }
  temporal_pre_norm->reset_parameters();
  if (final_norm) final_norm->reset_parameters();
  conv_1d->reset_parameters();
  rg_lru->reset_parameters();
}

SequenceOutput RgLruBlockImpl::forwardSequence(const torch::Tensor& input,
                                               const torch::Tensor& mask_pad,
                                               const SequenceState& state) {
  namespace F = torch::nn::functional;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == options_.input_size,
              "RgLruBlock: input must be (length, batch, ", options_.input_size, "), got ",
              input.sizes());
  if (!state.empty())
    TORCH_CHECK(state.tensors.size() == 2, "RgLruBlock: state must hold [h, conv inputs], got ",
                state.tensors.size(), " tensors");
  const torch::Tensor u = temporal_pre_norm(input);
  const torch::Tensor gate = F::gelu(linear_y(u), F::GELUFuncOptions().approximate("tanh"));
  auto [convolved, conv_state] =
      conv_1d(linear_x(u), mask_pad, state.empty() ? torch::Tensor() : state.tensors[1]);
  const SequenceState lru_state =
      state.empty() ? SequenceState() : SequenceState{{state.tensors[0]}, {}};
  const SequenceOutput lru = rg_lru->forwardSequence(convolved, mask_pad, lru_state);
  torch::Tensor out = linear_out(lru.features * gate);
  if (residual()) out = input + out;
  if (final_norm) out = final_norm(out);
  return {out, SequenceState{{lru.state.tensors[0], conv_state}, {}}};
}

}  // namespace recurlab::models
