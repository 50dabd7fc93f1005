#include "models/layers/rg_lru_layer.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/linear_recurrence.h"
#include "models/layers/gate_precision.h"
#include "models/layers/signed_decay.h"

namespace recurlab::models {
namespace {

// sqrt(u) with its derivative 1/(2·sqrt(u)) bounded by 1000 (u below 2.5e-7), as
// recurrentgemma's SqrtBoundDerivative: where a_t rounds to 1 the exact derivative is
// unbounded and one step could throw the gates far.
struct BoundedDerivativeSqrt : torch::autograd::Function<BoundedDerivativeSqrt> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& u) {
    ctx->save_for_backward({u});
    return torch::sqrt(u);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    const torch::Tensor u = ctx->get_saved_variables()[0];
    return {grad[0] * torch::rsqrt(torch::clamp_min(4 * u, 1e-6))};
  }
};

}  // namespace

RgLruLayerImpl::RgLruLayerImpl(RgLruLayerOptions options) : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "RgLruLayer: input_size must be positive, got ", o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "RgLruLayer: hidden_size must be positive, got ",
              o.hidden_size);
  TORCH_CHECK(o.decay_scale > 0, "RgLruLayer: decay_scale must be positive, got ",
              o.decay_scale);
  TORCH_CHECK(o.input_projection || o.input_size == o.hidden_size,
              "RgLruLayer: without input_projection, input_size (", o.input_size,
              ") must equal hidden_size (", o.hidden_size, ")");
  const int64_t d = o.hidden_size;
  if (o.input_projection) {
    weight_in = register_parameter("weight_in", torch::empty({o.input_size, d}));
    bias_in = register_parameter("bias_in", torch::empty({d}));
  }
  weight_gates = register_parameter("weight_gates", torch::empty({d, 2 * d}));
  bias_gates = register_parameter("bias_gates", torch::empty({2 * d}));
  decay_logit = register_parameter("decay_logit", torch::empty({d}));
  reset_parameters();
}

void RgLruLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double a_in = std::sqrt(3.0 / static_cast<double>(options_.input_size));
  const double a_gates = std::sqrt(3.0 / static_cast<double>(options_.hidden_size));
  if (options_.input_projection) {
    weight_in.uniform_(-a_in, a_in);
    bias_in.zero_();
  }
  weight_gates.uniform_(-a_gates, a_gates);
  bias_gates.zero_();
  // a^c ~ U[0.9, 0.999] (De et al. 2024, §2.4): a = u^{1/c}, Λ = logit(a).
  const torch::Tensor a = torch::empty_like(decay_logit).uniform_(0.9, 0.999).pow(
      1.0 / options_.decay_scale);
  decay_logit.copy_(torch::log(a) - torch::log1p(-a));
}

SequenceOutput RgLruLayerImpl::forwardSequence(const torch::Tensor& input,
                                               const torch::Tensor& mask_pad,
                                               const SequenceState& state) {
  namespace F = torch::nn::functional;
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "RgLruLayer: input must be (length, batch, ", o.input_size, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), d = o.hidden_size;
  const torch::Tensor flat = input.reshape({L * B, o.input_size});
  const torch::Tensor x = o.input_projection ? torch::addmm(bias_in, flat, weight_in) : flat;
  const torch::Tensor gates =
      inGatePrecision(torch::addmm(bias_gates, x, weight_gates).view({L, B, 2 * d}));
  const torch::Tensor r = torch::sigmoid(gates.slice(2, 0, d));
  const torch::Tensor i = torch::sigmoid(gates.slice(2, d, 2 * d));
  // log a_t = c·r_t·log σ(Λ) = -c·r_t·softplus(-Λ).
  const torch::Tensor log_a = -o.decay_scale * r * F::softplus(-decay_logit);
  torch::Tensor a = torch::exp(log_a), input_scale;
  if (o.negative_eigenvalues) {
    // 1 - (2a - 1)² = 4a(1 - a), without cancellation where a nears 1.
    input_scale = BoundedDerivativeSqrt::apply(-4 * a * torch::expm1(log_a));
    a = signedDecay(a);
  } else {
    input_scale = BoundedDerivativeSqrt::apply(-torch::expm1(2 * log_a));
  }
  // A sequence's first step (no state given) takes its input unscaled, h_1 = i_1 ⊙ x̃_1, as
  // recurrentgemma resets the scale at a document's first token.
  if (state.empty() && L > 0)
    input_scale = torch::cat({torch::ones_like(input_scale.slice(0, 0, 1)), input_scale.slice(0, 1)});
  const auto res = kernels::linearRecurrence(a, input_scale * (i * x.view({L, B, d})),
                                             state.tensor(0, "RgLruLayer"), mask_pad, {d, false});
  return {res[0], SequenceState{{res[1]}, {}}};
}

}  // namespace recurlab::models
