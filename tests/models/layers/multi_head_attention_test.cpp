#include "models/layers/multi_head_attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

namespace recurlab::models {
namespace {

constexpr int64_t T = 3, S = 4, B = 2, D = 8, H = 2;

// Attention written out per batch row and head from the module's own weights, in double.
torch::Tensor naiveAttention(MultiHeadAttentionImpl& m, const torch::Tensor& q_in,
                             const torch::Tensor& kv_in, const torch::Tensor& key_pad,
                             bool causal) {
  const int64_t hd = D / H;
  auto linear = [](const torch::nn::Linear& l, const torch::Tensor& x) {
    return x.matmul(l->weight.t()) + l->bias;
  };
  std::vector<torch::Tensor> rows;
  for (int64_t b = 0; b < B; ++b) {
    const torch::Tensor q = linear(m.q_proj, q_in.select(1, b));  // (T, D)
    const torch::Tensor k = linear(m.k_proj, kv_in.select(1, b));  // (S, D)
    const torch::Tensor v = linear(m.v_proj, kv_in.select(1, b));
    std::vector<torch::Tensor> heads;
    for (int64_t h = 0; h < H; ++h) {
      const torch::Tensor qh = q.narrow(1, h * hd, hd), kh = k.narrow(1, h * hd, hd),
                          vh = v.narrow(1, h * hd, hd);
      std::vector<torch::Tensor> steps;
      for (int64_t t = 0; t < T; ++t) {
        torch::Tensor s = kh.matmul(qh[t]) / std::sqrt(static_cast<double>(hd));  // (S)
        for (int64_t j = 0; j < S; ++j)
          if ((key_pad.defined() && key_pad[j][b].item<bool>()) || (causal && j > t))
            s[j] = -std::numeric_limits<double>::infinity();
        const torch::Tensor p = torch::exp(s - s.max()) / torch::exp(s - s.max()).sum();
        steps.push_back(p.matmul(vh));
      }
      heads.push_back(torch::stack(steps));  // (T, hd)
    }
    rows.push_back(linear(m.out_proj, torch::cat(heads, 1)));  // (T, D)
  }
  return torch::stack(rows, 1);  // (T, B, D)
}

MultiHeadAttention makeDoubleAttention() {
  torch::manual_seed(3);
  MultiHeadAttention m(MultiHeadAttentionOptions{D, H, 0.0});
  m->to(torch::kDouble);
  torch::NoGradGuard no_grad;
  m->out_proj->bias.uniform_(-0.3, 0.3);  // nonzero, so the test sees it
  return m;
}

TEST(MultiHeadAttention, EqualsANaiveDoubleReferenceWithPadAndCausalMasks) {
  MultiHeadAttention m = makeDoubleAttention();
  const torch::Tensor q = torch::randn({T, B, D}, torch::kDouble);
  const torch::Tensor kv = torch::randn({S, B, D}, torch::kDouble);
  torch::Tensor pad = torch::zeros({S, B}, torch::kBool);
  pad[3][1] = true;
  pad[2][1] = true;
  torch::NoGradGuard no_grad;
  EXPECT_LE((m->forward(q, kv, kv, pad).output - naiveAttention(*m, q, kv, pad, false))
                .abs().max().item<double>(), 1e-12);
  const torch::Tensor self = torch::randn({S, B, D}, torch::kDouble);
  const torch::Tensor got = m->forward(self, self, self, {}, true).output;
  // Causal self-attention: its first T queries against the naive reference (query t sees
  // keys 0..t).
  EXPECT_LE((got.narrow(0, 0, T) - naiveAttention(*m, self.narrow(0, 0, T), self, {}, true))
                .abs().max().item<double>(), 1e-12);
}

TEST(MultiHeadAttention, WeightsAreHeadAveragedProbabilitiesThatSkipPads) {
  MultiHeadAttention m = makeDoubleAttention();
  const torch::Tensor q = torch::randn({T, B, D}, torch::kDouble);
  const torch::Tensor kv = torch::randn({S, B, D}, torch::kDouble);
  torch::Tensor pad = torch::zeros({S, B}, torch::kBool);
  pad[3][0] = true;
  torch::NoGradGuard no_grad;
  const AttentionResult r = m->forward(q, kv, kv, pad, false, true);
  ASSERT_EQ(r.weights.sizes(), (std::vector<int64_t>{B, T, S}));
  EXPECT_LE((r.weights.sum(-1) - 1).abs().max().item<double>(), 1e-12);
  EXPECT_EQ(r.weights[0].select(1, 3).abs().max().item<double>(), 0.0);
  EXPECT_GT(r.weights[1].select(1, 3).min().item<double>(), 0.0);
}

// Autograd of the module against central finite differences of the naive reference.
TEST(MultiHeadAttention, GradientsMatchFiniteDifferencesOfTheNaiveReference) {
  MultiHeadAttention m = makeDoubleAttention();
  const torch::Tensor q = torch::randn({T, B, D}, torch::kDouble).requires_grad_(true);
  const torch::Tensor kv = torch::randn({S, B, D}, torch::kDouble).requires_grad_(true);
  torch::Tensor pad = torch::zeros({S, B}, torch::kBool);
  pad[3][1] = true;
  const torch::Tensor weights = torch::randn({T, B, D}, torch::kDouble);
  (m->forward(q, kv, kv, pad).output * weights).sum().backward();
  torch::NoGradGuard no_grad;
  const double h = 1e-6;
  auto loss = [&] { return (naiveAttention(*m, q, kv, pad, false) * weights).sum().item<double>(); };
  auto check = [&](torch::Tensor param, const torch::Tensor& grad, const char* what) {
    torch::Tensor flat = param.view(-1), g = grad.view(-1);
    for (int64_t i = 0; i < flat.numel(); i += 5) {
      const double saved = flat[i].item<double>();
      flat[i] = saved + h;
      const double up = loss();
      flat[i] = saved - h;
      const double down = loss();
      flat[i] = saved;
      EXPECT_NEAR(g[i].item<double>(), (up - down) / (2 * h), 1e-6) << what << " " << i;
    }
  };
  check(q.detach(), q.grad(), "query");
  check(kv.detach(), kv.grad(), "key/value");
  check(m->q_proj->weight.detach(), m->q_proj->weight.grad(), "q_proj");
  check(m->k_proj->weight.detach(), m->k_proj->weight.grad(), "k_proj");
  check(m->v_proj->bias.detach(), m->v_proj->bias.grad(), "v_proj bias");
}

}  // namespace
}  // namespace recurlab::models
