#include "models/layers/sru_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "common/runtime/torch_build.h"
#include "kernels/sru_recurrence.h"

namespace recurlab::models {

double SruLayerOptions::alpha() const {
  if (!rescale || numMatrices() == 4 || !has_skip_term) return 1.0;
  return std::sqrt(1.0 + 2.0 * std::exp(highway_bias));
}

SruLayerImpl::SruLayerImpl(SruLayerOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "SruLayer: input_size must be positive, got ", o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "SruLayer: hidden_size must be positive, got ", o.hidden_size);
  TORCH_CHECK(o.rc_dropout >= 0 && o.rc_dropout < 1,
              "SruLayer: rc_dropout (config key dropout) must be in [0, 1), got ", o.rc_dropout);
  TORCH_CHECK(o.rnn_dropout >= 0 && o.rnn_dropout < 1,
              "SruLayer: rnn_dropout must be in [0, 1), got ", o.rnn_dropout);
  TORCH_CHECK(o.projection_size >= 0, "SruLayer: projection_size must be >= 0, got ",
              o.projection_size);
  const int64_t out = o.outputSize(), k = o.numMatrices();
  const int64_t d_in = o.usesProjection() ? o.projection_size : o.input_size;
  if (o.usesProjection())
    weight_proj = register_parameter("weight_proj", torch::empty({o.input_size, d_in}));
  weight = register_parameter("weight", torch::empty({d_in, out * k}));
  weight_c = register_parameter("weight_c", torch::empty({2 * out}));
  bias = register_parameter("bias", torch::empty({2 * out}));
  scale_x = register_buffer("scale_x", torch::full({1}, o.alpha()));
  alpha_ = scale_x.item<double>();  // a new CPU tensor: no device to wait for
  if (o.layer_norm)
    layer_norm = register_module(
        "layer_norm",
        torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.normalize_after ? out : o.input_size})));
  reset_parameters();
}

void SruLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const auto& o = options_;
  const int64_t out = o.outputSize(), k = o.numMatrices();
  const double d_in = static_cast<double>(weight.size(0));
  weight.uniform_(-std::sqrt(3.0 / d_in), std::sqrt(3.0 / d_in));
  if (weight_proj.defined()) {
    const double a = std::sqrt(3.0 / o.input_size);
    weight_proj.uniform_(-a, a);
  }
  bias.zero_();
  bias.slice(0, out, 2 * out).fill_(o.highway_bias);
  auto w = weight.view({weight.size(0), out, k});
  if (o.rc_dropout > 0) w.select(2, 0).mul_(std::sqrt(1.0 - o.rc_dropout));
  if (o.rnn_dropout > 0) weight.mul_(std::sqrt(1.0 - o.rnn_dropout));
  if (o.layer_norm) weight.mul_(0.1);
  if (o.rescale && k == 4)
    w.select(2, 3).mul_(std::sqrt(1.0 + 2.0 * std::exp(o.highway_bias)));
  if (o.weight_c_init) {
    weight_c.uniform_(-*o.weight_c_init, *o.weight_c_init);
  } else {
    weight_c.uniform_(-std::sqrt(3.0), std::sqrt(3.0)).mul_(std::sqrt(0.5));
  }
  // The gate pre-activation has two terms (W x and v ⊙ c); halve each one's variance.
  w.select(2, 1).mul_(std::sqrt(0.5));
  w.select(2, 2).mul_(std::sqrt(0.5));
}

std::pair<torch::Tensor, torch::Tensor> SruLayerImpl::forward(const torch::Tensor& input,
                                                              const torch::Tensor& c0,
                                                              const torch::Tensor& mask_pad) {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3, "SruLayer: input must be (length, batch, ", o.input_size,
              "), got ", input.sizes());
  TORCH_CHECK(input.size(2) == o.input_size, "SruLayer: input has ", input.size(2),
              " features, expected input_size = ", o.input_size);
  // Under autocast (--precision bf16/fp16) a layer's input is the previous layer's
  // reduced-precision output: the matmul and the fused recurrence take it (mixed_precision.h).
  const bool autocast = autocastEnabled(input.device().type());
  TORCH_CHECK(autocast || input.scalar_type() == weight.scalar_type(), "SruLayer: input dtype ",
              input.scalar_type(), " differs from the layer's ", weight.scalar_type());
  const int64_t L = input.size(0), B = input.size(1), out = o.outputSize();
  // As the reference (asappresearch/sru 2.6 SRUCell.forward): the skip term takes the input
  // itself; layer norm and then the variational rnn_dropout mask apply to the matmul's input
  // only. A masked skip would scale the highway path by 1/(1 - rnn_dropout) at every layer
  // (with rescale's α on top, a 5-layer reader started at a loss ~100x too high).
  const torch::Tensor& residual = input;
  torch::Tensor x_for_u = (o.layer_norm && !o.normalize_after) ? layer_norm(input) : input;
  if (is_training() && o.rnn_dropout > 0) {
    auto mask =
        torch::empty({B, o.input_size}, input.options()).bernoulli_(1.0 - o.rnn_dropout);
    x_for_u = x_for_u * (mask / (1.0 - o.rnn_dropout)).unsqueeze(0);
  }
  torch::Tensor flat = x_for_u.reshape({L * B, o.input_size});
  if (weight_proj.defined()) flat = flat.mm(weight_proj);
  const torch::Tensor u = flat.mm(weight).view({L, B, out * o.numMatrices()});
  torch::Tensor mask_c;
  if (is_training() && o.rc_dropout > 0)
    mask_c = torch::empty({B, out}, input.options()).bernoulli_(1.0 - o.rc_dropout) /
             (1.0 - o.rc_dropout);
  kernels::SruRecurrenceOptions ko;
  ko.hidden_size = o.hidden_size;
  ko.bidirectional = o.bidirectional;
  ko.skip = !o.has_skip_term          ? kernels::SruSkip::None
            : o.numMatrices() == 4    ? kernels::SruSkip::LearnedProjection
                                      : kernels::SruSkip::ScaledInput;
  ko.alpha = alpha_;
  auto res = kernels::sruRecurrence(u, residual, weight_c, bias, c0, mask_c, mask_pad, ko);
  torch::Tensor h = res[0];
  if (o.layer_norm && o.normalize_after) h = layer_norm(h);
  return {h, res[1]};
}

}  // namespace recurlab::models
