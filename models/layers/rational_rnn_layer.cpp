#include "models/layers/rational_rnn_layer.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

RationalRnnLayerImpl::RationalRnnLayerImpl(RationalRnnLayerOptions options)
    : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "RationalRnnLayer: input_size must be positive, got ",
              o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "RationalRnnLayer: hidden_size must be positive, got ",
              o.hidden_size);
  const auto ko = o.kernelOptions();
  weight = register_parameter("weight",
                              torch::empty({o.input_size, o.hidden_size * ko.numMatrices()}));
  gate_bias = register_parameter(
      "gate_bias", torch::empty({o.hidden_size, ko.numMatrices() - ko.numStates()}));
  if (o.pattern == kernels::RationalPattern::F)
    weight_final = register_parameter("weight_final", torch::empty({3 * o.hidden_size}));
  reset_parameters();
}

void RationalRnnLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a = std::sqrt(3.0 / static_cast<double>(options_.input_size));
  weight.uniform_(-a, a);
  gate_bias.zero_();
  if (weight_final.defined()) weight_final.zero_();
}

torch::Tensor RationalRnnLayerImpl::preActivations(const torch::Tensor& input) const {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "RationalRnnLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), S = o.kernelOptions().numStates();
  // Bias per unit [0 (z columns) | gate biases], flattened to the interleaved layout.
  const torch::Tensor bias =
      torch::cat({torch::zeros({o.hidden_size, S}, gate_bias.options()), gate_bias}, 1)
          .reshape(-1);
  return torch::addmm(bias, input.reshape({L * B, o.input_size}), weight)
      .view({L, B, weight.size(1)});
}

std::pair<torch::Tensor, torch::Tensor> RationalRnnLayerImpl::forward(
    const torch::Tensor& input, const torch::Tensor& c0, const torch::Tensor& mask_pad) {
  auto res = kernels::rationalRecurrence(preActivations(input), weight_final, c0, mask_pad,
                                         options_.kernelOptions());
  return {res[0], res[1]};
}

}  // namespace recurlab::models
