#include "models/layers/hgrn_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/linear_recurrence.h"
#include "models/layers/gate_precision.h"
#include "models/layers/signed_decay.h"

namespace recurlab::models {
namespace {
constexpr double kRmsNormEpsilon = 1e-5;  // flash-linear-attention's default norm_eps

// t (.., in) W (in, out) + b, b undefined for none.
torch::Tensor affine(const torch::Tensor& t, const torch::Tensor& w, const torch::Tensor& b) {
  return b.defined() ? torch::addmm(b, t, w) : torch::mm(t, w);
}
}  // namespace

HgrnLayerImpl::HgrnLayerImpl(HgrnLayerOptions options) : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "HgrnLayer: input_size must be positive, got ", o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "HgrnLayer: hidden_size must be positive, got ", o.hidden_size);
  const int64_t d = o.hidden_size;
  weight = register_parameter("weight", torch::empty({o.input_size, 3 * d}));
  if (o.bias) bias = register_parameter("bias", torch::empty({3 * d}));
  if (o.gated_rms_norm)
    norm_weight = register_parameter("norm_weight", torch::empty({d}));
  else
    layer_norm = register_module("layer_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  weight_out = register_parameter("weight_out", torch::empty({d, d}));
  if (o.bias) bias_out = register_parameter("bias_out", torch::empty({d}));
  reset_parameters();
}

void HgrnLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a_in = std::sqrt(3.0 / static_cast<double>(options_.input_size));
  const double a_out = std::sqrt(3.0 / static_cast<double>(options_.hidden_size));
  weight.uniform_(-a_in, a_in);
  weight_out.uniform_(-a_out, a_out);
  if (options_.bias) {
    bias.zero_();
    bias_out.zero_();
  }
  if (options_.gated_rms_norm) norm_weight.fill_(1.0);
}

std::pair<torch::Tensor, torch::Tensor> HgrnLayerImpl::forward(const torch::Tensor& input,
                                                               const torch::Tensor& lower_bound,
                                                               const torch::Tensor& mask_pad,
                                                               const torch::Tensor& h0) {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "HgrnLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), d = o.hidden_size;
  const torch::Tensor u =
      inGatePrecision(affine(input.reshape({L * B, o.input_size}), weight, bias).view({L, B, 3 * d}));
  const torch::Tensor pf = u.slice(2, 0, d);
  const torch::Tensor lambda = lower_bound + (1 - lower_bound) * torch::sigmoid(pf);
  const torch::Tensor keep = (1 - lower_bound) * torch::sigmoid(-pf);  // 1 - λ
  const torch::Tensor c = torch::silu(u.slice(2, d, 2 * d));
  const auto res = kernels::linearRecurrence(o.negative_eigenvalues ? signedDecay(lambda) : lambda,
                                             keep * c, h0, mask_pad, {d, false});
  const torch::Tensor g = u.slice(2, 2 * d, 3 * d), h = res[0];
  const torch::Tensor normalized =
      o.gated_rms_norm
          ? h * torch::rsqrt(h.pow(2).mean(-1, /*keepdim=*/true) + kRmsNormEpsilon) * norm_weight *
                torch::silu(g)
          : layer_norm(torch::sigmoid(g) * h);
  const torch::Tensor y = affine(normalized.reshape({L * B, d}), weight_out, bias_out).view({L, B, d});
  return {y, res[1]};
}

}  // namespace recurlab::models
