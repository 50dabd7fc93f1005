#include "models/layers/sru_linear_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/linear_recurrence.h"
#include "models/layers/signed_decay.h"

namespace recurlab::models {

SruLinearLayerImpl::SruLinearLayerImpl(SruLinearLayerOptions options) : options_(options) {
  TORCH_CHECK(options_.input_size > 0, "SruLinearLayer: input_size must be positive, got ",
              options_.input_size);
  TORCH_CHECK(options_.hidden_size > 0, "SruLinearLayer: hidden_size must be positive, got ",
              options_.hidden_size);
  const int64_t out = options_.outputSize();
  weight = register_parameter("weight",
                              torch::empty({options_.input_size, options_.numMatrices() * out}));
  bias = register_parameter("bias", torch::empty({2 * out}));
  reset_parameters();
}

void SruLinearLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a = std::sqrt(3.0 / static_cast<double>(options_.input_size));  // variance 1/fan_in
  weight.uniform_(-a, a);
  bias.zero_();
}

SequenceOutput SruLinearLayerImpl::forwardSequence(const torch::Tensor& input,
                                                   const torch::Tensor& mask_pad,
                                                   const SequenceState& state) {
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "SruLinearLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), out = o.outputSize();
  const torch::Tensor u =
      input.reshape({L * B, o.input_size}).mm(weight).view({L, B, o.numMatrices() * out});
  const torch::Tensor x_tilde = u.slice(2, 0, out);
  const torch::Tensor f = torch::sigmoid(u.slice(2, out, 2 * out) + bias.slice(0, 0, out));
  const torch::Tensor r =
      torch::sigmoid(u.slice(2, 2 * out, 3 * out) + bias.slice(0, out, 2 * out));
  const torch::Tensor highway = o.numMatrices() == 4 ? u.slice(2, 3 * out, 4 * out) : input;
  // 1 - f = σ(-p_f) without cancellation.
  const torch::Tensor keep = torch::sigmoid(-(u.slice(2, out, 2 * out) + bias.slice(0, 0, out)));
  const auto res = kernels::linearRecurrence(o.negative_eigenvalues ? signedDecay(f) : f,
                                             keep * x_tilde, state.tensor(0, "SruLinearLayer"),
                                             mask_pad, {o.hidden_size, o.bidirectional});
  const torch::Tensor g = o.tanh_activation ? torch::tanh(res[0]) : res[0];
  return {r * g + (1 - r) * highway, SequenceState{{res[1]}, {}}};
}

}  // namespace recurlab::models
