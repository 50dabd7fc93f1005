#include "models/layers/gla_layer.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace recurlab::models {

namespace {
// The reference model's norm_eps (fla's GLAConfig), which its blocks pass to this norm too.
constexpr double kNormEpsilon = 1e-6;

// heads · max(1, round(hidden · expand / heads)): a whole number of units per head for any
// hidden width (the parameter-budget fit tries every width).
int64_t widthOf(int64_t hidden, double expand, int64_t heads) {
  const double per_head = static_cast<double>(hidden) * expand / static_cast<double>(heads);
  return heads * std::max<int64_t>(1, std::llround(per_head));
}
}  // namespace

int64_t GlaLayerOptions::keyWidth() const { return widthOf(hidden_size, expand_k, heads); }
int64_t GlaLayerOptions::valueWidth() const { return widthOf(hidden_size, expand_v, heads); }

GlaLayerImpl::GlaLayerImpl(GlaLayerOptions options) : options_(options) {
  const auto& o = options_;
  TORCH_CHECK(o.input_size > 0, "GlaLayer: input_size must be positive, got ", o.input_size);
  TORCH_CHECK(o.hidden_size > 0, "GlaLayer: hidden_size must be positive, got ", o.hidden_size);
  TORCH_CHECK(o.heads > 0, "GlaLayer: heads must be positive, got ", o.heads);
  TORCH_CHECK(o.gate_rank > 0, "GlaLayer: gate_rank must be positive, got ", o.gate_rank);
  TORCH_CHECK(o.gate_normalizer > 0, "GlaLayer: gate_normalizer must be positive, got ",
              o.gate_normalizer);
  TORCH_CHECK(o.chunk_length >= kernels::kGlaChunkLengthByDevice,
              "GlaLayer: chunk_length must be -1 (by device), 0 (step by step) or positive, got ",
              o.chunk_length);
  TORCH_CHECK(o.expand_k > 0 && o.expand_v > 0, "GlaLayer: expand_k and expand_v must be positive, got ",
              o.expand_k, " and ", o.expand_v);
  const int64_t dk = o.keyWidth(), dv = o.valueWidth();
  weight_q = register_parameter("weight_q", torch::empty({o.input_size, dk}));
  weight_k = register_parameter("weight_k", torch::empty({o.input_size, dk}));
  weight_v = register_parameter("weight_v", torch::empty({o.input_size, dv}));
  weight_gate_down = register_parameter("weight_gate_down", torch::empty({o.input_size, o.gate_rank}));
  weight_gate_up = register_parameter("weight_gate_up", torch::empty({o.gate_rank, dk}));
  bias_gate = register_parameter("bias_gate", torch::empty({dk}));
  weight_out_gate = register_parameter("weight_out_gate", torch::empty({o.input_size, dv}));
  norm_weight = register_parameter("norm_weight", torch::empty({dv / o.heads}));
  weight_out = register_parameter("weight_out", torch::empty({dv, o.hidden_size}));
  reset_parameters();
}

void GlaLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  // Uniform with variance 1/fan_in; the gate's bias zero, so that α starts at σ(0)^{1/τ}
  // (0.958 for τ = 16), and the norm's weight one.
  const auto init = [](torch::Tensor& w) {
    const double a = std::sqrt(3.0 / static_cast<double>(w.size(0)));
    w.uniform_(-a, a);
  };
  for (torch::Tensor* w : {&weight_q, &weight_k, &weight_v, &weight_gate_down, &weight_gate_up,
                           &weight_out_gate, &weight_out})
    init(*w);
  bias_gate.zero_();
  norm_weight.fill_(1.0);
}

SequenceOutput GlaLayerImpl::forwardSequence(const torch::Tensor& input,
                                             const torch::Tensor& mask_pad,
                                             const SequenceState& state) {
  namespace F = torch::nn::functional;
  const auto& o = options_;
  TORCH_CHECK(input.dim() == 3 && input.size(2) == o.input_size,
              "GlaLayer: input must be (length, batch, ", o.input_size, "), got ", input.sizes());
  const int64_t L = input.size(0), B = input.size(1), H = o.heads;
  const int64_t dk = o.keyWidth(), dv = o.valueWidth();
  const torch::Tensor x = input.reshape({L * B, o.input_size});
  const auto heads = [&](const torch::Tensor& t, int64_t width) {
    return t.view({L, B, H, width / H});
  };
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk / H));
  const torch::Tensor q = heads(torch::mm(x, weight_q) * scale, dk);
  const torch::Tensor k = heads(torch::mm(x, weight_k), dk);
  const torch::Tensor v = heads(torch::mm(x, weight_v), dv);
  // log α = log σ(x W_α1 W_α2 + b_α) / τ.
  const torch::Tensor log_alpha = heads(
      F::logsigmoid(torch::addmm(bias_gate, torch::mm(x, weight_gate_down), weight_gate_up)) /
          o.gate_normalizer,
      dk);
  // A fresh state in the weights' dtype: under autocast q, k, v are bfloat16 and the op keeps
  // the state in s0's dtype, so the carried state stays float32 from segment to segment.
  torch::Tensor s0 = state.tensor(0, "GlaLayer");
  if (!s0.defined()) s0 = torch::zeros({B, o.heads, dk / o.heads, dv / o.heads}, weight_q.options());
  std::vector<torch::Tensor> res;
  if (L == 1) {
    res = kernels::gatedLinearAttentionStep(q[0], k[0], v[0], log_alpha[0], s0,
                                            mask_pad.defined() ? mask_pad[0] : mask_pad);
    res[0] = res[0].unsqueeze(0);
  } else {
    res = kernels::gatedLinearAttention(q, k, v, log_alpha, s0, mask_pad, {o.chunk_length});
  }
  // Each head's outputs normalized (RMSNorm), then the Swish output gate and W_o.
  const torch::Tensor& out = res[0];
  const torch::Tensor normalized =
      out * torch::rsqrt(out.pow(2).mean(-1, /*keepdim=*/true) + kNormEpsilon) * norm_weight;
  const torch::Tensor gated = normalized.reshape({L * B, dv}) * F::silu(torch::mm(x, weight_out_gate));
  return {torch::mm(gated, weight_out).view({L, B, o.hidden_size}), SequenceState{{res[1]}, {}}};
}

}  // namespace recurlab::models
