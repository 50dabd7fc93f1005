#include "models/layers/ngram_rcnn_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/ngram_recurrence.h"

namespace recurlab::models {

NgramRcnnLayerImpl::NgramRcnnLayerImpl(NgramRcnnLayerOptions options)
    : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "NgramRcnnLayer: input_size must be positive, got ",
              o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "NgramRcnnLayer: hidden_size must be positive, got ",
              o.hidden_size);
  TORCH_CHECK(o.n >= 1 && o.n <= 4, "NgramRcnnLayer: n must be in [1, 4], got ", o.n);
  weight = register_parameter("weight", torch::empty({o.input_size, o.hidden_size * o.numMatrices()}));
  gate_bias = register_parameter("gate_bias", torch::empty({o.hidden_size, o.numMatrices() - o.n}));
  reset_parameters();
}

void NgramRcnnLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a = std::sqrt(3.0 / static_cast<double>(options_.input_size));
  weight.uniform_(-a, a);
  gate_bias.zero_();
}

torch::Tensor NgramRcnnLayerImpl::preActivations(const torch::Tensor& input) const {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "NgramRcnnLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1);
  const torch::Tensor bias =
      torch::cat({torch::zeros({o.hidden_size, o.n}, gate_bias.options()), gate_bias}, 1)
          .reshape(-1);
  return torch::addmm(bias, input.reshape({L * B, o.input_size}), weight)
      .view({L, B, weight.size(1)});
}

std::pair<torch::Tensor, torch::Tensor> NgramRcnnLayerImpl::forward(const torch::Tensor& input,
                                                                    const torch::Tensor& c0,
                                                                    const torch::Tensor& mask_pad) {
  auto res = kernels::ngramRecurrence(preActivations(input), c0, mask_pad,
                                      {options_.hidden_size, options_.n, options_.output_gate});
  return {res[0], res[1]};
}

}  // namespace recurlab::models
