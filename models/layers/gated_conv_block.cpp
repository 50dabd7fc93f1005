#include "models/layers/gated_conv_block.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

double GatedConvBlockOptions::initStd() const {
  const double n = static_cast<double>(kernel_width * input_channels);
  return init == GluInit::DropoutAware ? std::sqrt(4.0 * retainProbability() / n)
                                       : std::sqrt(1.0 / n);
}

GatedConvBlockImpl::GatedConvBlockImpl(GatedConvBlockOptions options)
    : options_(std::move(options)) {
  const auto& o = options_;
  TORCH_CHECK(o.input_channels > 0, "GatedConvBlock: input_channels must be positive, got ",
              o.input_channels);
  TORCH_CHECK(o.output_channels > 0, "GatedConvBlock: output_channels must be positive, got ",
              o.output_channels);
  TORCH_CHECK(o.kernel_width > 0, "GatedConvBlock: kernel_width must be positive, got ",
              o.kernel_width);
  TORCH_CHECK(o.dropout >= 0 && o.dropout < 1, "GatedConvBlock: dropout must be in [0, 1), got ",
              o.dropout);
  conv = register_module(
      "conv", torch::nn::Conv1d(torch::nn::Conv1dOptions(o.input_channels, 2 * o.output_channels,
                                                         o.kernel_width)
                                    .bias(true)));
  if (o.weight_norm)
    weight_g = register_parameter("weight_g", torch::ones({2 * o.output_channels, 1, 1}));
  reset_parameters();
}

void GatedConvBlockImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  conv->weight.normal_(0.0, options_.initStd());
  conv->bias.zero_();
  if (weight_g.defined()) weight_g.copy_(conv->weight.pow(2).sum({1, 2}, true).sqrt());
}

SequenceOutput GatedConvBlockImpl::forwardSequence(const torch::Tensor& input,
                                                   const torch::Tensor& mask_pad,
                                                   const SequenceState& state) {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_channels,
              "GatedConvBlock: input must be (length, batch, ", o.input_channels, "), got ",
              input.sizes());
  TORCH_CHECK(causal() || state.empty(),
              "GatedConvBlock: a block with 'same' padding looks ahead and carries no state, "
              "but got one (use causal padding to encode a sequence in segments)");
  torch::Tensor keep;  // (L, B, 1), 1 = real step
  torch::Tensor x = input;
  if (mask_pad.defined()) {
    TORCH_CHECK(mask_pad.dim() == 2 && mask_pad.size(0) == input.size(0) &&
                    mask_pad.size(1) == input.size(1),
                "GatedConvBlock: mask_pad must be (length, batch) = (", input.size(0), ", ",
                input.size(1), "), got ", mask_pad.sizes());
    keep = mask_pad.logical_not().unsqueeze(2).to(input.scalar_type());
    x = x * keep;
  }
  x = x.permute({1, 2, 0});  // (B, c_in, L): Conv1d's layout
  if (is_training() && o.dropout > 0)
    x = torch::nn::functional::dropout(
        x, torch::nn::functional::DropoutFuncOptions().p(o.dropout).training(true));
  const int64_t pad = o.kernel_width - 1;
  SequenceOutput out;
  if (causal()) {
    const torch::Tensor previous = state.tensor(0, "GatedConvBlock");  // (B, k-1, c_in)
    out.state.tensors = {lastRealSteps(previous, x.permute({2, 0, 1}), mask_pad, pad)};
    x = previous.defined() ? torch::cat({previous.permute({0, 2, 1}), x}, 2)
                           : torch::constant_pad_nd(x, {pad, 0});
  } else {
    x = torch::constant_pad_nd(x, {pad / 2, pad - pad / 2});
  }
  torch::Tensor y;  // (B, 2·c_out, L)
  if (weight_g.defined()) {
    const torch::Tensor norm = conv->weight.pow(2).sum({1, 2}, true).sqrt();
    y = torch::conv1d(x, conv->weight * (weight_g / norm), conv->bias);
  } else {
    y = conv->forward(x);
  }
  y = torch::glu(y, 1).permute({2, 0, 1});  // a ⊙ σ(b) over channels -> (L, B, c_out)
  if (o.hasResidual()) y = (y + input) * std::sqrt(0.5);
  if (keep.defined()) y = y * keep;
  out.features = y;
  return out;
}

}  // namespace recurlab::models
