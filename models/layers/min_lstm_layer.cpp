#include "models/layers/min_lstm_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/linear_recurrence.h"
#include "models/layers/gate_precision.h"
#include "models/layers/min_rnn_log_space.h"
#include "models/layers/signed_decay.h"

namespace recurlab::models {

MinLstmLayerImpl::MinLstmLayerImpl(MinLstmLayerOptions options) : options_(options) {
  TORCH_CHECK(options_.input_size > 0, "MinLstmLayer: input_size must be positive, got ",
              options_.input_size);
  TORCH_CHECK(options_.hidden_size > 0, "MinLstmLayer: hidden_size must be positive, got ",
              options_.hidden_size);
  TORCH_CHECK(!(options_.log_space && options_.negative_eigenvalues),
              "MinLstmLayer: negative_eigenvalues needs log_space off (the log-space form takes "
              "the logarithm of a_t)");
  const int64_t out = options_.outputSize();
  weight = register_parameter("weight", torch::empty({options_.input_size, 3 * out}));
  bias = register_parameter("bias", torch::empty({3 * out}));
  reset_parameters();
}

void MinLstmLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a = std::sqrt(3.0 / static_cast<double>(options_.input_size));  // variance 1/fan_in
  weight.uniform_(-a, a);
  bias.zero_();
}

SequenceOutput MinLstmLayerImpl::forwardSequence(const torch::Tensor& input,
                                                 const torch::Tensor& mask_pad,
                                                 const SequenceState& state) {
  namespace F = torch::nn::functional;
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "MinLstmLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), out = o.outputSize();
  const torch::Tensor u = inGatePrecision(
      torch::addmm(bias, input.reshape({L * B, o.input_size}), weight).view({L, B, 3 * out}));
  const torch::Tensor pf = u.slice(2, 0, out), pi = u.slice(2, out, 2 * out);
  const torch::Tensor candidate = u.slice(2, 2 * out, 3 * out);
  torch::Tensor a, b;
  if (o.log_space) {
    // log f - log i = softplus(-p_i) - softplus(-p_f) = -δ.
    const torch::Tensor delta = F::softplus(-pf) - F::softplus(-pi);
    a = torch::exp(-F::softplus(delta));
    b = torch::exp(-F::softplus(-delta) + logPositiveCandidate(candidate));
  } else {
    const torch::Tensor f = torch::sigmoid(pf), i = torch::sigmoid(pi);
    a = f / (f + i);
    b = i / (f + i) * candidate;
  }
  if (o.negative_eigenvalues) a = signedDecay(a);
  const auto res = kernels::linearRecurrence(a, b, state.tensor(0, "MinLstmLayer"), mask_pad,
                                             {o.hidden_size, o.bidirectional});
  return {res[0], SequenceState{{res[1]}, {}}};
}

}  // namespace recurlab::models
