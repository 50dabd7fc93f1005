#include "tests/support/isan_layer.h"

#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {

IsanLayerImpl::IsanLayerImpl(IsanLayerOptions options) : options_(options) {
  TORCH_CHECK(options_.vocab_size > 0, "IsanLayer: vocab_size must be positive, got ",
              options_.vocab_size);
  TORCH_CHECK(options_.hidden_size > 0, "IsanLayer: hidden_size must be positive, got ",
              options_.hidden_size);
  const int64_t V = options_.vocab_size, d = options_.hidden_size;
  weight = register_parameter("weight", torch::empty({V, d, d}));
  bias = register_parameter("bias", torch::empty({V, d}));
  reset_parameters();
}

void IsanLayerImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_.hidden_size));
  weight.uniform_(-bound, bound);
  bias.uniform_(-bound, bound);
}

std::pair<torch::Tensor, torch::Tensor> IsanLayerImpl::forward(const torch::Tensor& tokens,
                                                               const torch::Tensor& h0,
                                                               const torch::Tensor& mask_pad) {
  const int64_t V = options_.vocab_size, d = options_.hidden_size;
  TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kLong,
              "IsanLayer: tokens must be (length, batch) int64, got ", tokens.sizes(), " ",
              tokens.scalar_type());
  const int64_t L = tokens.size(0), B = tokens.size(1);
  if (tokens.numel() > 0) {
    const int64_t lo = tokens.min().item<int64_t>(), hi = tokens.max().item<int64_t>();
    TORCH_CHECK(lo >= 0 && hi < V, "IsanLayer: token ids must be in [0, ", V, "), got ",
                lo < 0 ? lo : hi);
  }
  const auto options = weight.options();
  torch::Tensor h = h0.defined() ? h0 : torch::zeros({B, d}, options);
  TORCH_CHECK(h.dim() == 2 && h.size(0) == B && h.size(1) == d,
              "IsanLayer: h0 must be (batch, hidden) = (", B, ", ", d, "), got ", h.sizes());
  torch::Tensor pad;
  if (mask_pad.defined()) {
    TORCH_CHECK(mask_pad.dim() == 2 && mask_pad.size(0) == L && mask_pad.size(1) == B,
                "IsanLayer: mask_pad must be (length, batch) = (", L, ", ", B, "), got ",
                mask_pad.sizes());
    pad = mask_pad.to(torch::kBool).unsqueeze(2);  // (L, B, 1)
  }
  std::vector<torch::Tensor> outputs;
  outputs.reserve(static_cast<size_t>(L));
  for (int64_t t = 0; t < L; ++t) {
    const torch::Tensor symbols = tokens[t];
    torch::Tensor next = torch::bmm(weight.index_select(0, symbols), h.unsqueeze(2)).squeeze(2) +
                         bias.index_select(0, symbols);
    if (pad.defined()) {
      // A pad step keeps the state (so the last h is that of the last real step) and outputs 0.
      h = torch::where(pad[t], h, next);
      outputs.push_back(next.masked_fill(pad[t], 0.0));
    } else {
      h = next;
      outputs.push_back(next);
    }
  }
  torch::Tensor out = L > 0 ? torch::stack(outputs) : torch::zeros({0, B, d}, options);
  return {out, h};
}

}  // namespace recurlab::models
