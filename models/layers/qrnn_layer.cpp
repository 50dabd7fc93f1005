#include "models/layers/qrnn_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/qrnn_pooling.h"

namespace recurlab::models {

QrnnLayerImpl::QrnnLayerImpl(QrnnLayerOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "QrnnLayer: input_size must be positive, got ", o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "QrnnLayer: hidden_size must be positive, got ", o.hidden_size);
  TORCH_CHECK(o.window == 1 || o.window == 2, "QrnnLayer: window must be 1 or 2, got ", o.window);
  TORCH_CHECK(o.zoneout >= 0 && o.zoneout < 1, "QrnnLayer: zoneout must be in [0, 1), got ",
              o.zoneout);
  weight = register_parameter(
      "weight", torch::empty({o.window * o.input_size, o.hidden_size * o.numMatrices()}));
  bias = register_parameter("bias", torch::empty({o.hidden_size * o.numMatrices()}));
  reset_parameters();
}

void QrnnLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a = std::sqrt(3.0 / static_cast<double>(weight.size(0)));  // variance 1/fan_in
  weight.uniform_(-a, a);
  bias.zero_();
}

torch::Tensor QrnnLayerImpl::preActivations(const torch::Tensor& input,
                                            const torch::Tensor& previous) const {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "QrnnLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1);
  torch::Tensor x = input;
  if (o.window == 2) {
    // x_{t-1}: the carried input, or zeros, before the first step.
    torch::Tensor first = torch::zeros({1, B, o.input_size}, input.options());
    if (previous.defined()) {
      TORCH_CHECK(previous.sizes() == c10::IntArrayRef({B, 1, o.input_size}),
                  "QrnnLayer: the carried input must be (batch, 1, ", o.input_size, "), got ",
                  previous.sizes());
      first = previous.transpose(0, 1);
    }
    x = torch::cat({input, torch::cat({first, input.slice(0, 0, L - 1)})}, 2);
  }
  return torch::addmm(bias, x.reshape({L * B, x.size(2)}), weight)
      .view({L, B, o.hidden_size * o.numMatrices()});
}

std::pair<torch::Tensor, torch::Tensor> QrnnLayerImpl::pool(const torch::Tensor& u,
                                                            const torch::Tensor& c0,
                                                            const torch::Tensor& mask_pad) {
  const auto& o = options_;
  torch::Tensor zoneout;
  if (o.zoneout > 0) {
    const auto shape = std::vector<int64_t>{u.size(0), u.size(1), o.hidden_size};
    zoneout = is_training()
                  ? torch::empty(shape, u.options()).bernoulli_(1.0 - o.zoneout)
                  : torch::full(shape, 1.0 - o.zoneout, u.options());
  }
  auto res = kernels::qrnnPooling(u, c0, zoneout, mask_pad, {o.hidden_size, o.output_gate});
  return {res[0], res[1]};
}

std::pair<torch::Tensor, torch::Tensor> QrnnLayerImpl::forward(const torch::Tensor& input,
                                                               const torch::Tensor& c0,
                                                               const torch::Tensor& mask_pad) {
  return pool(preActivations(input), c0, mask_pad);
}

SequenceOutput QrnnLayerImpl::forwardSequence(const torch::Tensor& input,
                                              const torch::Tensor& mask_pad,
                                              const SequenceState& state) {
  const bool carries_input = options_.window == 2;
  const torch::Tensor previous = carries_input ? state.tensor(1, "QrnnLayer") : torch::Tensor();
  auto [h, c] = pool(preActivations(input, previous), state.tensor(0, "QrnnLayer"), mask_pad);
  SequenceOutput out{h, {}};
  out.state.tensors.push_back(c);
  if (carries_input) out.state.tensors.push_back(lastRealSteps(previous, input, mask_pad, 1));
  return out;
}

}  // namespace recurlab::models
